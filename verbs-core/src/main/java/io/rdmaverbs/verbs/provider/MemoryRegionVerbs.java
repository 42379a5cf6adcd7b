package io.rdmaverbs.verbs.provider;

import java.lang.foreign.MemorySegment;

/**
 * Memory registration: {@code ibv_reg_mr(3)}, {@code ibv_dereg_mr(3)}. Failures and handle checks as
 * described on {@link VerbsProvider}.
 */
public interface MemoryRegionVerbs {

    /** {@code ibv_reg_mr} on a native segment, with {@link io.rdmaverbs.verbs.attr.AccessFlag} bits. */
    MrHandle regMr(PdHandle pd, MemorySegment buffer, int access);

    /** {@code ibv_dereg_mr}. */
    void deregMr(MrHandle mr);
}
