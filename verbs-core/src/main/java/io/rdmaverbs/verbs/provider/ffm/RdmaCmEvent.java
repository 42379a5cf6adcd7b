package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.C_ENUM;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.C_INT;
import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/**
 * {@code struct rdma_cm_event}, as {@code rdma_get_cm_event(3)} hands it out: librdmacm's memory until
 * {@code rdma_ack_cm_event(3)}, private data included, so everything is copied out before the ack.
 * {@code param} is {@code conn} for RC ids and {@code ud} for {@code RDMA_PS_UDP} ids.
 */
final class RdmaCmEvent {

    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("id"),
            ADDRESS.withName("listen_id"),
            C_ENUM.withName("event"),
            C_INT.withName("status"),
            MemoryLayout.unionLayout(
                    RdmaConnParam.LAYOUT.withName("conn"),
                    RdmaUdParam.LAYOUT.withName("ud"))
                    .withName("param"))
            .withName("rdma_cm_event");

    static final Field.OfAddress ID = Field.ofAddress(LAYOUT, "id");
    static final Field.OfAddress LISTEN_ID = Field.ofAddress(LAYOUT, "listen_id");
    static final Field.OfInt EVENT = Field.ofInt(LAYOUT, "event");
    static final Field.OfInt STATUS = Field.ofInt(LAYOUT, "status");
    static final long PARAM = Field.offset(LAYOUT, "param");

    private RdmaCmEvent() {
    }
}
