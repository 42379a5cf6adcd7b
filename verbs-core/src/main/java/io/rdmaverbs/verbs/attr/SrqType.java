package io.rdmaverbs.verbs.attr;

/** {@code enum ibv_srq_type}. */
public enum SrqType {
    BASIC, XRC
}
