package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.C_INT;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/**
 * {@code struct rdma_event_channel}: only the descriptor that {@code rdma_get_cm_event(3)} reads, which
 * may be made non-blocking and polled as the man page describes.
 */
final class RdmaEventChannel {

    static final StructLayout LAYOUT = MemoryLayout.structLayout(C_INT.withName("fd")).withName("rdma_event_channel");

    static final Field.OfInt FD = Field.ofInt(LAYOUT, "fd");

    private RdmaEventChannel() {
    }
}
