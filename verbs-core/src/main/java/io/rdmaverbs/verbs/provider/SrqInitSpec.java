package io.rdmaverbs.verbs.provider;

import io.rdmaverbs.verbs.attr.SrqType;

import org.jspecify.annotations.Nullable;

/**
 * {@code struct ibv_srq_init_attr_ex} in handle form. An XRC SRQ needs an XRC domain and a CQ; a
 * basic SRQ needs neither.
 */
public record SrqInitSpec(SrqType type, PdHandle pd, @Nullable XrcdHandle xrcd, @Nullable CqHandle cq, int maxWr,
        int maxSge, int limit) {
}
