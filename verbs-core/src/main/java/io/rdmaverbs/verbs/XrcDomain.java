package io.rdmaverbs.verbs;

import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.provider.QpInitSpec;
import io.rdmaverbs.verbs.provider.VerbsProvider;
import io.rdmaverbs.verbs.provider.XrcdHandle;

import org.jspecify.annotations.Nullable;

/**
 * An XRC domain ({@code struct ibv_xrcd}, {@code ibv_open_xrcd(3)}), possibly shared with other
 * processes through a file's inode. XRC receive QPs and XRC SRQs (created in a protection domain with
 * {@link SharedReceiveQueueSpec#xrc}) live in it; {@code ibv_close_xrcd} fails while they do, and while
 * this process is still registered with any of its receive QPs ({@code ibv_reg_xrc_rcv_qp(3)}).
 */
public final class XrcDomain extends VerbsResource {

    final XrcdHandle handle;
    private final VerbsProvider provider;
    private final DeviceContext context;
    private final XrcDomainSpec spec;

    XrcDomain(DeviceContext context, XrcdHandle handle, XrcDomainSpec spec, @Nullable String name) {
        super(context.verbs, ResourceKind.XRC_DOMAIN, List.of(context), name);
        this.handle = handle;
        this.provider = context.verbs.provider();
        this.context = context;
        this.spec = spec;
    }

    @Override
    public DeviceContext context() {
        return context;
    }

    /** How the domain was opened: the inode that names it, if any, and the open flags. */
    public XrcDomainSpec spec() {
        return spec;
    }

    /**
     * {@code ibv_create_qp_ex} of an XRC receive (target) QP in this domain. This process is registered
     * with it until the returned QP is closed; the QP itself lives until every registered process
     * (see {@link #openReceiveQueuePair}) has let go.
     */
    public QueuePair createReceiveQueuePair() {
        return newReceiveQueuePair(null);
    }

    /** {@link #createReceiveQueuePair()}, named {@code name} in reports. */
    public QueuePair createReceiveQueuePair(String name) {
        return newReceiveQueuePair(Objects.requireNonNull(name, "name"));
    }

    private QueuePair newReceiveQueuePair(@Nullable String name) {
        QpInitSpec init = new QpInitSpec(QpType.XRC_RECV, null, handle, null, null, null, new QpCapabilities(0, 0, 0, 0, 0),
                false);
        return verbs.create(this, List.of(context, this),
                () -> new QueuePair(context, null, this, null, null, null,
                        provider.queuePairVerbs().createQp(context.handle, init), name));
    }

    /**
     * {@code ibv_open_qp}: registers this process with the existing XRC receive QP {@code qpNum} of this
     * domain (the rdma-core successor of {@code ibv_reg_xrc_rcv_qp(3)}). Closing the
     * registration unregisters; the QP is destroyed when the last registration goes. Reports name the
     * registration after the QP number.
     */
    public XrcReceiveQpRegistration openReceiveQueuePair(int qpNum) {
        return newRegistration(qpNum, null);
    }

    /** {@link #openReceiveQueuePair(int)}, named {@code name} in reports. */
    public XrcReceiveQpRegistration openReceiveQueuePair(int qpNum, String name) {
        return newRegistration(qpNum, Objects.requireNonNull(name, "name"));
    }

    private XrcReceiveQpRegistration newRegistration(int qpNum, @Nullable String name) {
        if (qpNum <= 0 || qpNum > 0xffffff) {
            throw new IllegalArgumentException("a QP number is 1..0xffffff, got " + qpNum);
        }
        return verbs.create(this, List.of(context, this), () -> new XrcReceiveQpRegistration(this,
                provider.queuePairVerbs().openQp(context.handle, handle, qpNum, QpType.XRC_RECV), name));
    }

    @Override
    public Map<String, Object> details() {
        Map<String, Object> m = new Details();
        m.put("file", spec.file() != null ? spec.file().toString()
                : spec.isPrivate() ? "none (private)" : "descriptor " + spec.descriptor());
        m.put("create", spec.create());
        m.put("exclusive", spec.exclusive());
        return m;
    }

    @Override
    void release() {
        provider.domainVerbs().closeXrcd(handle);
    }
}
