package io.rdmaverbs.verbs.attr;

/** {@code enum ibv_event_type}, in header order, with what the event's element is. */
public enum AsyncEventType {
    CQ_ERR(Element.CQ), QP_FATAL(Element.QP), QP_REQ_ERR(Element.QP), QP_ACCESS_ERR(Element.QP),
    COMM_EST(Element.QP), SQ_DRAINED(Element.QP), PATH_MIG(Element.QP), PATH_MIG_ERR(Element.QP),
    DEVICE_FATAL(Element.DEVICE), PORT_ACTIVE(Element.PORT), PORT_ERR(Element.PORT), LID_CHANGE(Element.PORT),
    PKEY_CHANGE(Element.PORT), SM_CHANGE(Element.PORT), SRQ_ERR(Element.SRQ), SRQ_LIMIT_REACHED(Element.SRQ),
    QP_LAST_WQE_REACHED(Element.QP), CLIENT_REREGISTER(Element.PORT), GID_CHANGE(Element.PORT),
    WQ_FATAL(Element.WQ);

    /** Which member of {@code ibv_async_event.element} is valid. */
    public enum Element { CQ, QP, SRQ, WQ, PORT, DEVICE }

    private static final AsyncEventType[] ALL = values();
    private final Element element;

    AsyncEventType(Element element) {
        this.element = element;
    }

    public Element element() {
        return element;
    }

    public static AsyncEventType of(int value) {
        if (value < 0 || value >= ALL.length) {
            throw new IllegalArgumentException("unknown ibv_event_type " + value);
        }
        return ALL[value];
    }

    /** Events after which the element (or the whole device) can no longer be used. */
    public boolean isFatal() {
        return this == DEVICE_FATAL || this == QP_FATAL || this == CQ_ERR || this == SRQ_ERR || this == WQ_FATAL;
    }
}
