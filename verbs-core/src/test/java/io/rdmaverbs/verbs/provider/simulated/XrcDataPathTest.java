package io.rdmaverbs.verbs.provider.simulated;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.EnumSet;

import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.OpenFlags;
import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.QpModification;
import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.attr.SendFlag;
import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.attr.SrqType;
import io.rdmaverbs.verbs.attr.WcOpcode;
import io.rdmaverbs.verbs.attr.WcStatus;
import io.rdmaverbs.verbs.provider.CompletionVerbs;
import io.rdmaverbs.verbs.provider.ContextHandle;
import io.rdmaverbs.verbs.provider.CqHandle;
import io.rdmaverbs.verbs.provider.DomainVerbs;
import io.rdmaverbs.verbs.provider.MrHandle;
import io.rdmaverbs.verbs.provider.PdHandle;
import io.rdmaverbs.verbs.provider.QpHandle;
import io.rdmaverbs.verbs.provider.QpInitSpec;
import io.rdmaverbs.verbs.provider.QueuePairVerbs;
import io.rdmaverbs.verbs.provider.SendWr;
import io.rdmaverbs.verbs.provider.SharedReceiveQueueVerbs;
import io.rdmaverbs.verbs.provider.SrqHandle;
import io.rdmaverbs.verbs.provider.SrqInitSpec;
import io.rdmaverbs.verbs.provider.XrcdHandle;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * XRC: a sender on one HCA addresses an XRC SRQ of the receiving process through an XRC receive QP of
 * the same domain; here the receive QP is created in one context and the SRQ in another, sharing the
 * domain through a file.
 */
class XrcDataPathTest {

    @TempDir
    Path dir;

    private final VerbsRig rig = new VerbsRig(DeviceProfile.mlx5("mlx5_0"), DeviceProfile.mlx5("mlx5_1"));
    private final SimulatedProvider provider = rig.provider;
    private final DomainVerbs domainVerbs = provider.domainVerbs();
    private final CompletionVerbs cqVerbs = provider.completionVerbs();
    private final SharedReceiveQueueVerbs srqVerbs = provider.sharedReceiveQueueVerbs();
    private final QueuePairVerbs qpVerbs = provider.queuePairVerbs();

    @AfterEach
    void close() {
        rig.close();
    }

    @Test
    void anXrcSendLandsInTheNamedSrqAndCompletesOnItsCq() {
        // Receiving side: two contexts of mlx5_1 share one domain.
        ContextHandle owner = rig.open("mlx5_1");
        ContextHandle worker = rig.open("mlx5_1");
        int fd = domainVerbs.openFile(dir.resolve("xrc-domain"), true);
        XrcdHandle ownerXrcd = domainVerbs.openXrcd(owner, fd, OpenFlags.CREATE);
        XrcdHandle workerXrcd = domainVerbs.openXrcd(worker, fd, 0);
        QpHandle target = qpVerbs.createQp(owner, new QpInitSpec(QpType.XRC_RECV, null, ownerXrcd, null, null, null,
                QpCapabilities.of(0, 0), false));
        PdHandle workerPd = domainVerbs.allocPd(worker);
        CqHandle workerCq = cqVerbs.createCq(worker, 16, null, 0);
        SrqHandle srq = srqVerbs.createSrq(worker, new SrqInitSpec(SrqType.XRC, workerPd, workerXrcd, workerCq, 8, 1,
                0));
        assertThat(srq.srqNum()).isPositive();
        MemorySegment inbox = rig.buffer(256);
        MrHandle inboxMr = rig.register(workerPd, inbox);
        rig.receive(srq, 77, inbox, 256, inboxMr);

        // Sending side on mlx5_0.
        ContextHandle client = rig.open("mlx5_0");
        PdHandle pd = domainVerbs.allocPd(client);
        CqHandle cq = cqVerbs.createCq(client, 16, null, 0);
        QpHandle sender = qpVerbs.createQp(client, new QpInitSpec(QpType.XRC_SEND, pd, null, cq, null, null,
                QpCapabilities.of(8, 0), false));
        MemorySegment outbox = rig.buffer(64);
        MrHandle outboxMr = rig.register(pd, outbox);
        MemorySegment.copy("via xrc".getBytes(), 0, outbox, ValueLayout.JAVA_BYTE, 0, 7);

        connect(sender, client, target, owner);

        try (SendWr wr = qpVerbs.newSendWr(1)) {
            wr.wrId(78);
            wr.opcode(SendOpcode.SEND);
            wr.flags(SendFlag.SIGNALED);
            wr.sge(0, outbox.address(), 7, outboxMr.lkey());
            wr.sgeCount(1);
            wr.xrcRemoteSrqNum(srq.srqNum());
            qpVerbs.postSend(sender, wr);
        }

        assertThat(VerbsRig.read(inbox, 0, 7)).isEqualTo("via xrc");
        assertThat(rig.poll(workerCq)).extracting(VerbsRig.Wc::wrId, VerbsRig.Wc::opcode, VerbsRig.Wc::byteLength,
                VerbsRig.Wc::qpNum).containsExactly(tuple(77L, WcOpcode.RECV, 7, target.qpNum()));
        assertThat(rig.poll(cq)).extracting(VerbsRig.Wc::wrId, VerbsRig.Wc::status)
                .containsExactly(tuple(78L, WcStatus.SUCCESS));
    }

    @Test
    void anSrqOfAnotherDomainIsRefusedByTheTarget() {
        ContextHandle owner = rig.open("mlx5_1");
        XrcdHandle domain = domainVerbs.openXrcd(owner, -1, OpenFlags.CREATE);
        XrcdHandle otherDomain = domainVerbs.openXrcd(owner, -1, OpenFlags.CREATE);
        QpHandle target = qpVerbs.createQp(owner, new QpInitSpec(QpType.XRC_RECV, null, domain, null, null, null,
                QpCapabilities.of(0, 0), false));
        PdHandle ownerPd = domainVerbs.allocPd(owner);
        CqHandle ownerCq = cqVerbs.createCq(owner, 16, null, 0);
        SrqHandle foreignSrq = srqVerbs.createSrq(owner, new SrqInitSpec(SrqType.XRC, ownerPd, otherDomain, ownerCq,
                8, 1, 0));
        MemorySegment inbox = rig.buffer(64);
        rig.receive(foreignSrq, 1, inbox, 64, rig.register(ownerPd, inbox));

        ContextHandle client = rig.open("mlx5_0");
        PdHandle pd = domainVerbs.allocPd(client);
        CqHandle cq = cqVerbs.createCq(client, 16, null, 0);
        QpHandle sender = qpVerbs.createQp(client, new QpInitSpec(QpType.XRC_SEND, pd, null, cq, null, null,
                QpCapabilities.of(8, 0), false));
        MemorySegment outbox = rig.buffer(64);
        MrHandle outboxMr = rig.register(pd, outbox);
        connect(sender, client, target, owner);

        try (SendWr wr = qpVerbs.newSendWr(1)) {
            wr.opcode(SendOpcode.SEND);
            wr.flags(SendFlag.SIGNALED);
            wr.sge(0, outbox.address(), 4, outboxMr.lkey());
            wr.sgeCount(1);
            wr.xrcRemoteSrqNum(foreignSrq.srqNum());
            qpVerbs.postSend(sender, wr);
        }

        assertThat(rig.poll(cq)).extracting(VerbsRig.Wc::status).containsExactly(WcStatus.REM_INV_REQ_ERR);
        assertThat(rig.poll(ownerCq)).isEmpty();
    }

    /** XRC_SEND needs RC's requester attributes but only UC's responder ones; XRC_RECV never sends. */
    private void connect(QpHandle sender, ContextHandle client, QpHandle target, ContextHandle owner) {
        EnumSet<AccessFlag> access = EnumSet.of(AccessFlag.REMOTE_WRITE);
        qpVerbs.modifyQp(sender, QpModification.init(1, 0, access));
        qpVerbs.modifyQp(target, QpModification.init(1, 0, access));
        rig.rtr(sender, rig.addressOf(owner), target.qpNum());
        rig.rtr(target, rig.addressOf(client), sender.qpNum());
        qpVerbs.modifyQp(sender, VerbsRig.rts(QpType.XRC_SEND, 7));
    }
}
