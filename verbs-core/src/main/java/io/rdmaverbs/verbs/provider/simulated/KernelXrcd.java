package io.rdmaverbs.verbs.provider.simulated;

import java.util.HashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * The kernel's {@code struct ib_xrcd}: one per inode per device, shared by every context that opened
 * it, or private to one context when opened without a file. It owns its XRC receive QPs.
 */
final class KernelXrcd {

    final long id;
    /** The file identity ({@code fileKey}) the domain is registered under, null for a private domain. */
    final @Nullable Object inode;
    /** Open handles across contexts; the domain goes away with the last. */
    int opens;
    final Map<Integer, KernelQp> receiveQps = new HashMap<>();

    KernelXrcd(long id, @Nullable Object inode) {
        this.id = id;
        this.inode = inode;
    }
}
