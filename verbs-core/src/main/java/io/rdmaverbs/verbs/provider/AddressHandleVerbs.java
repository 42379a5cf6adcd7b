package io.rdmaverbs.verbs.provider;

import io.rdmaverbs.verbs.attr.AddressVector;

/**
 * Address handles for UD sends: {@code ibv_create_ah(3)}, {@code ibv_destroy_ah(3)}. Failures and
 * handle checks as described on {@link VerbsProvider}.
 */
public interface AddressHandleVerbs {

    /** {@code ibv_create_ah}. */
    AhHandle createAh(PdHandle pd, AddressVector address);

    /** {@code ibv_destroy_ah}. */
    void destroyAh(AhHandle ah);
}
