package io.rdmaverbs.verbs;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.attr.SrqType;
import io.rdmaverbs.verbs.provider.QpInitSpec;
import io.rdmaverbs.verbs.provider.SrqInitSpec;
import io.rdmaverbs.verbs.provider.VerbsProvider;
import io.rdmaverbs.verbs.provider.XrcdHandle;

import org.jspecify.annotations.Nullable;

/**
 * An XRC domain ({@code struct ibv_xrcd}, seed 000), possibly shared with other processes through a
 * file's inode. XRC receive QPs and XRC SRQs live in it; {@code ibv_close_xrcd} fails while they do,
 * and while this process is still registered with any of its receive QPs (seed 004).
 */
public final class XrcDomain extends VerbsResource {

    final XrcdHandle handle;
    private final VerbsProvider provider;
    private final DeviceContext context;
    private final XrcDomainOptions options;

    XrcDomain(DeviceContext context, XrcdHandle handle, XrcDomainOptions options, @Nullable String name) {
        super(context.verbs, ResourceKind.XRC_DOMAIN, List.of(context), name);
        this.handle = handle;
        this.provider = context.verbs.provider();
        this.context = context;
        this.options = options;
    }

    @Override
    public DeviceContext context() {
        return context;
    }

    public XrcDomainOptions options() {
        return options;
    }

    /**
     * {@code ibv_create_qp_ex} of an XRC receive (target) QP in this domain. This process is registered
     * with it until the returned QP is closed; the QP itself lives until every registered process
     * (see {@link #openReceiveQueuePair}) has let go.
     */
    public QueuePair createReceiveQueuePair(@Nullable String name) {
        QpInitSpec init = new QpInitSpec(QpType.XRC_RECV, null, handle, null, null, null, new QpCapabilities(0, 0, 0, 0, 0),
                false);
        return verbs.create(this, List.of(context, this),
                () -> new QueuePair(context, null, this, null, null, null,
                        provider.queuePairVerbs().createQp(context.handle, init), name));
    }

    /**
     * {@code ibv_open_qp}: registers this process with the existing XRC receive QP {@code qpNum} of this
     * domain (the rdma-core successor of seed 004's {@code ibv_reg_xrc_rcv_qp}). Closing the
     * registration unregisters; the QP is destroyed when the last registration goes.
     */
    public XrcReceiveQpRegistration openReceiveQueuePair(int qpNum, @Nullable String name) {
        if (qpNum <= 0 || qpNum > 0xffffff) {
            throw new IllegalArgumentException("a QP number is 1..0xffffff, got " + qpNum);
        }
        return verbs.create(this, List.of(context, this), () -> new XrcReceiveQpRegistration(this,
                provider.queuePairVerbs().openQp(context.handle, handle, qpNum, QpType.XRC_RECV), name));
    }

    /** {@code ibv_create_srq_ex} of an XRC SRQ: receives for this domain, completes on {@code cq}. */
    public SharedReceiveQueue createSharedReceiveQueue(ProtectionDomain pd, CompletionQueue cq, int maxWr, int maxSge,
            @Nullable String name) {
        Objects.requireNonNull(pd, "pd");
        Objects.requireNonNull(cq, "cq");
        context.requireSameContext(pd, "protection domain");
        context.requireSameContext(cq, "CQ");
        ProtectionDomain.checkSrq(context.attributes(), maxWr, maxSge, 0);
        SrqInitSpec init = new SrqInitSpec(SrqType.XRC, pd.handle, handle, cq.handle, maxWr, maxSge, 0);
        return verbs.create(this, List.of(context, this, pd, cq), () -> new SharedReceiveQueue(pd, this, cq,
                provider.sharedReceiveQueueVerbs().createSrq(context.handle, init), SrqType.XRC, maxWr, maxSge, name));
    }

    @Override
    public Map<String, Object> details() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("file", options.file() == null ? "none (private)" : options.file().toString());
        m.put("create", options.create());
        m.put("exclusive", options.exclusive());
        return m;
    }

    @Override
    void release() {
        provider.domainVerbs().closeXrcd(handle);
    }
}
