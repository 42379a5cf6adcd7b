package io.rdmaverbs.verbs.provider.simulated;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.AddressVector;
import io.rdmaverbs.verbs.attr.Gid;
import io.rdmaverbs.verbs.attr.LinkLayer;
import io.rdmaverbs.verbs.attr.Mtu;
import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.QpModification;
import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.attr.WcOpcode;
import io.rdmaverbs.verbs.attr.WcStatus;
import io.rdmaverbs.verbs.attr.WorkCompletions;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.ContextHandle;
import io.rdmaverbs.verbs.provider.CqHandle;
import io.rdmaverbs.verbs.provider.DeviceVerbs;
import io.rdmaverbs.verbs.provider.MrHandle;
import io.rdmaverbs.verbs.provider.PdHandle;
import io.rdmaverbs.verbs.provider.QpHandle;
import io.rdmaverbs.verbs.provider.QpInitSpec;
import io.rdmaverbs.verbs.provider.RecvWr;
import io.rdmaverbs.verbs.provider.SendWr;
import io.rdmaverbs.verbs.provider.SrqHandle;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.jspecify.annotations.Nullable;

/**
 * A test rig over one simulated provider: opens contexts, creates and connects QPs the way an
 * application would, registers shared native memory, and reads completions back as values.
 */
final class VerbsRig implements AutoCloseable {

    /** One polled completion. */
    record Wc(long wrId, WcStatus status, WcOpcode opcode, int byteLength, int immediate, int qpNum, int sourceQp,
            int flags) {
    }

    static final int ALL_ACCESS = AccessFlag.mask(EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE,
            AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC));

    final SimulatedProvider provider;
    final Arena arena = Arena.ofShared();
    private final WorkCompletions wc;

    VerbsRig(DeviceProfile... profiles) {
        this(SimulatedProvider.of(profiles));
    }

    VerbsRig(SimulatedProvider provider) {
        this.provider = provider;
        this.wc = provider.completionVerbs().newWorkCompletions(64);
    }

    ContextHandle open(String device) {
        DeviceVerbs devices = provider.deviceVerbs();
        return devices.openDevice(devices.devices().stream().filter(d -> d.name().equals(device)).findFirst()
                .orElseThrow());
    }

    MemorySegment buffer(int size) {
        return arena.allocate(size, 64);
    }

    MemorySegment text(String s) {
        byte[] bytes = s.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        MemorySegment seg = buffer(Math.max(bytes.length, 64));
        MemorySegment.copy(bytes, 0, seg, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, bytes.length);
        return seg;
    }

    static String read(MemorySegment seg, long offset, int length) {
        byte[] out = seg.asSlice(offset, length).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        return new String(out, java.nio.charset.StandardCharsets.US_ASCII);
    }

    MrHandle register(PdHandle pd, MemorySegment seg) {
        return provider.memoryRegionVerbs().regMr(pd, seg, ALL_ACCESS);
    }

    QpHandle qp(ContextHandle ctx, PdHandle pd, CqHandle cq, QpType type) {
        return qp(ctx, pd, cq, type, null);
    }

    QpHandle qp(ContextHandle ctx, PdHandle pd, CqHandle cq, QpType type, @Nullable SrqHandle srq) {
        return provider.queuePairVerbs().createQp(ctx, new QpInitSpec(type, pd, null, cq, cq, srq,
                new QpCapabilities(16, 16, 2, 2, 0),
                false));
    }

    /** The address of port 1 of {@code ctx}'s device: GRH to GID[0] on RoCE, the LID on InfiniBand. */
    AddressVector addressOf(ContextHandle ctx) {
        var port = provider.deviceVerbs().queryPort(ctx, 1);
        if (port.linkLayer() == LinkLayer.ETHERNET) {
            return AddressVector.roce(1, provider.deviceVerbs().queryGid(ctx, 1, 0), 0);
        }
        return AddressVector.infiniband(1, port.lid());
    }

    /** Brings two RC/UC QPs to RTS, each pointing at the other, as a connection manager would. */
    void connect(QpHandle a, ContextHandle ca, QpHandle b, ContextHandle cb) {
        connect(a, ca, b, cb, 7);
    }

    void connect(QpHandle a, ContextHandle ca, QpHandle b, ContextHandle cb, int rnrRetry) {
        EnumSet<AccessFlag> remote = EnumSet.of(AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ,
                AccessFlag.REMOTE_ATOMIC);
        provider.queuePairVerbs().modifyQp(a, QpModification.init(1, 0, remote));
        provider.queuePairVerbs().modifyQp(b, QpModification.init(1, 0, remote));
        rtr(a, addressOf(cb), b.qpNum());
        rtr(b, addressOf(ca), a.qpNum());
        provider.queuePairVerbs().modifyQp(a, rts(a.type(), rnrRetry));
        provider.queuePairVerbs().modifyQp(b, rts(b.type(), rnrRetry));
    }

    /** Connects an RC/UC QP to itself: sends come back to its own receive queue. */
    void loopback(QpHandle qp, ContextHandle ctx) {
        provider.queuePairVerbs().modifyQp(qp, QpModification.init(1, 0, EnumSet.of(AccessFlag.REMOTE_WRITE,
                AccessFlag.REMOTE_READ,
                AccessFlag.REMOTE_ATOMIC)));
        rtr(qp, addressOf(ctx), qp.qpNum());
        provider.queuePairVerbs().modifyQp(qp, rts(qp.type(), 7));
    }

    void rtr(QpHandle qp, AddressVector path, int remoteQpn) {
        provider.queuePairVerbs().modifyQp(qp, QpModification.readyToReceive(qp.type(), path, remoteQpn, 0,
                Mtu.MTU_1024));
    }

    static QpModification rts(QpType type, int rnrRetry) {
        return switch (type) {
            case RC, XRC_SEND -> QpModification.to(io.rdmaverbs.verbs.attr.QpState.RTS).sqPsn(0).timeout(14)
                    .retryCount(7).rnrRetry(rnrRetry).maxRdAtomic(1);
            case XRC_RECV -> QpModification.to(io.rdmaverbs.verbs.attr.QpState.RTS).sqPsn(0).timeout(14);
            default -> QpModification.readyToSend(type, 0);
        };
    }

    /** Brings a UD QP to RTS with the given Q_Key. */
    void datagramReady(QpHandle qp, int qkey) {
        provider.queuePairVerbs().modifyQp(qp, QpModification.initDatagram(1, 0, qkey));
        provider.queuePairVerbs().modifyQp(qp, QpModification.to(io.rdmaverbs.verbs.attr.QpState.RTR));
        provider.queuePairVerbs().modifyQp(qp, QpModification.readyToSend(QpType.UD, 0));
    }

    void post(QpHandle qp, SendOpcode opcode, long wrId, MemorySegment seg, int length, MrHandle mr, int flags) {
        try (SendWr wr = provider.queuePairVerbs().newSendWr(1)) {
            wr.wrId(wrId);
            wr.opcode(opcode);
            wr.flags(flags);
            wr.sge(0, seg.address(), length, mr.lkey());
            wr.sgeCount(1);
            wr.immediateData(0x11223344);
            provider.queuePairVerbs().postSend(qp, wr);
        }
    }

    void rdma(QpHandle qp, SendOpcode opcode, long wrId, MemorySegment local, int length, MrHandle mr, long remote,
            int rkey, int flags) {
        try (SendWr wr = provider.queuePairVerbs().newSendWr(1)) {
            wr.wrId(wrId);
            wr.opcode(opcode);
            wr.flags(flags);
            wr.sge(0, local.address(), length, mr.lkey());
            wr.sgeCount(1);
            wr.immediateData(0x55667788);
            wr.rdma(remote, rkey);
            provider.queuePairVerbs().postSend(qp, wr);
        }
    }

    void receive(QpHandle qp, long wrId, MemorySegment seg, int length, MrHandle mr) {
        try (RecvWr wr = recvWr(wrId, seg, length, mr)) {
            provider.queuePairVerbs().postRecv(qp, wr);
        }
    }

    void receive(SrqHandle srq, long wrId, MemorySegment seg, int length, MrHandle mr) {
        try (RecvWr wr = recvWr(wrId, seg, length, mr)) {
            provider.sharedReceiveQueueVerbs().postSrqRecv(srq, wr);
        }
    }

    private RecvWr recvWr(long wrId, MemorySegment seg, int length, MrHandle mr) {
        RecvWr wr = provider.queuePairVerbs().newRecvWr(1);
        wr.wrId(wrId);
        wr.sge(0, seg.address(), length, mr.lkey());
        wr.sgeCount(1);
        return wr;
    }

    /** Polls with the rig's own buffer: one thread at a time. */
    List<Wc> poll(CqHandle cq) {
        return poll(cq, wc);
    }

    /** Polls into the caller's buffer, for tests that poll from several threads. */
    List<Wc> poll(CqHandle cq, WorkCompletions wc) {
        List<Wc> out = new ArrayList<>();
        int n;
        while ((n = provider.completionVerbs().pollCq(cq, wc, wc.capacity())) > 0) {
            for (int i = 0; i < n; i++) {
                out.add(new Wc(wc.wrId(i), wc.status(i), wc.opcode(i), wc.byteLength(i), wc.immediateData(i),
                        wc.qpNum(i), wc.sourceQp(i), wc.wcFlags(i)));
            }
        }
        return out;
    }

    static Gid multicastGid(int group) {
        return new Gid(0xff12_0000_0000_0000L, group);
    }

    /** Asserts the call fails with a VerbsException naming the verb and errno. */
    static void assertVerbFails(ThrowingCallable call, String verb, Errno errno) {
        assertThatThrownBy(call).isInstanceOfSatisfying(VerbsException.class, e -> {
            assertThat(e.verb()).isEqualTo(verb);
            assertThat(e.errno()).isEqualTo(errno);
            assertThat(e.reason()).isNotBlank();
        });
    }

    @Override
    public void close() {
        wc.close();
        arena.close();
    }
}
