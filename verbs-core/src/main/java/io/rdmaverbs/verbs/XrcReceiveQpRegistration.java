package io.rdmaverbs.verbs;

import java.util.List;
import java.util.Map;

import io.rdmaverbs.verbs.provider.QpHandle;
import io.rdmaverbs.verbs.provider.VerbsProvider;

import org.jspecify.annotations.Nullable;

/**
 * This process's registration with an XRC receive QP of an {@link XrcDomain} ({@code ibv_open_qp};
 * the legacy {@code ibv_reg_xrc_rcv_qp(3)}). While it lives, the domain cannot be closed. Closing it
 * ({@code ibv_destroy_qp} on the opened handle) unregisters; the QP goes when its last registration does.
 */
public final class XrcReceiveQpRegistration extends VerbsResource {

    final QpHandle handle;
    private final VerbsProvider provider;
    private final XrcDomain xrcd;

    XrcReceiveQpRegistration(XrcDomain xrcd, QpHandle handle, @Nullable String name) {
        super(xrcd.verbs, ResourceKind.XRC_RECEIVE_QP_REGISTRATION, List.of(xrcd.context(), xrcd),
                name != null ? name : "xrc-rcv-qp-" + handle.qpNum());
        this.handle = handle;
        this.provider = xrcd.verbs.provider();
        this.xrcd = xrcd;
    }

    @Override
    public DeviceContext context() {
        return xrcd.context();
    }

    public XrcDomain xrcDomain() {
        return xrcd;
    }

    public int qpNum() {
        return handle.qpNum();
    }

    @Override
    public Map<String, Object> details() {
        Map<String, Object> m = new Details();
        m.put("qpNum", qpNum());
        m.put("xrcd", xrcd.name());
        return m;
    }

    /** The registration makes {@code ibv_close_xrcd(3)} of its domain fail until it is closed. */
    @Override
    Hold holdOn(VerbsResource parent) {
        return parent == xrcd ? registrationOn(this) : super.holdOn(parent);
    }

    /** The hold on an XRC domain of this process's registration with the receive QP {@code qp}. */
    static Hold registrationOn(VerbsResource qp) {
        return new Hold(StuckReference.Cause.XRC_RECEIVE_QP_REGISTRATION,
                "has this process registered on its XRC receive QP " + qp.name());
    }

    @Override
    QpHandle eventHandle() {
        return handle;
    }

    @Override
    void release() {
        provider.queuePairVerbs().destroyQp(handle);
    }
}
