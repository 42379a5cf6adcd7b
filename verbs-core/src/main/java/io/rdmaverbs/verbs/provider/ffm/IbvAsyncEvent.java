package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.C_ENUM;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.C_INT;
import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/** {@code struct ibv_async_event}: which member of {@code element} is valid depends on the event type. */
final class IbvAsyncEvent {

    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            MemoryLayout.unionLayout(
                    ADDRESS.withName("cq"),
                    ADDRESS.withName("qp"),
                    ADDRESS.withName("srq"),
                    ADDRESS.withName("wq"),
                    C_INT.withName("port_num"))
                    .withName("element"),
            C_ENUM.withName("event_type"),
            MemoryLayout.paddingLayout(4))
            .withName("ibv_async_event");

    static final Field.OfAddress ELEMENT_CQ = Field.ofAddress(LAYOUT, "element", "cq");
    static final Field.OfAddress ELEMENT_QP = Field.ofAddress(LAYOUT, "element", "qp");
    static final Field.OfAddress ELEMENT_SRQ = Field.ofAddress(LAYOUT, "element", "srq");
    static final Field.OfInt ELEMENT_PORT_NUM = Field.ofInt(LAYOUT, "element", "port_num");
    static final Field.OfInt EVENT_TYPE = Field.ofInt(LAYOUT, "event_type");

    private IbvAsyncEvent() {
    }
}
