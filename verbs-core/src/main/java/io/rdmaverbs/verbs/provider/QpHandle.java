package io.rdmaverbs.verbs.provider;

import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.QpType;

/** A provider's handle on a queue pair ({@code struct ibv_qp}), created or opened. */
public interface QpHandle extends Handle {

    int qpNum();

    QpType type();

    /** The capabilities actually granted (the create call updates {@code qp_init_attr.cap}). */
    QpCapabilities capabilities();
}
