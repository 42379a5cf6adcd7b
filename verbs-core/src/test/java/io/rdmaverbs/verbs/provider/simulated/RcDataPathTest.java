package io.rdmaverbs.verbs.provider.simulated;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import io.rdmaverbs.verbs.attr.QpState;
import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.attr.SendFlag;
import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.attr.SrqType;
import io.rdmaverbs.verbs.attr.WcFlag;
import io.rdmaverbs.verbs.attr.WcOpcode;
import io.rdmaverbs.verbs.attr.WcStatus;
import io.rdmaverbs.verbs.provider.CompletionVerbs;
import io.rdmaverbs.verbs.provider.ContextHandle;
import io.rdmaverbs.verbs.provider.CqHandle;
import io.rdmaverbs.verbs.provider.DomainVerbs;
import io.rdmaverbs.verbs.provider.MemoryRegionVerbs;
import io.rdmaverbs.verbs.provider.MrHandle;
import io.rdmaverbs.verbs.provider.PdHandle;
import io.rdmaverbs.verbs.provider.QpHandle;
import io.rdmaverbs.verbs.provider.QueuePairVerbs;
import io.rdmaverbs.verbs.provider.SendWr;
import io.rdmaverbs.verbs.provider.SharedReceiveQueueVerbs;
import io.rdmaverbs.verbs.provider.SrqHandle;
import io.rdmaverbs.verbs.provider.SrqInitSpec;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Bytes moving over connected QPs, and the completions (and errors) both sides see. */
class RcDataPathTest {

    private final VerbsRig rig = new VerbsRig(DeviceProfile.rxe("rxe0"), DeviceProfile.rxe("rxe1"));
    private final SimulatedProvider provider = rig.provider;
    private final DomainVerbs domainVerbs = provider.domainVerbs();
    private final CompletionVerbs cqVerbs = provider.completionVerbs();
    private final SharedReceiveQueueVerbs srqVerbs = provider.sharedReceiveQueueVerbs();
    private final QueuePairVerbs qpVerbs = provider.queuePairVerbs();
    private final MemoryRegionVerbs mrVerbs = provider.memoryRegionVerbs();

    /** Two RC QPs on one rxe device, like ibv_rc_pingpong over loopback. */
    private final class Pair {
        final ContextHandle ctxA;
        final ContextHandle ctxB;
        final PdHandle pdA;
        final PdHandle pdB;
        final CqHandle cqA;
        final CqHandle cqB;
        final QpHandle a;
        final QpHandle b;
        final MemorySegment bufA = rig.buffer(4096);
        final MemorySegment bufB = rig.buffer(4096);
        final MrHandle mrA;
        final MrHandle mrB;

        Pair(String deviceA, String deviceB, QpType type, int rnrRetry) {
            ctxA = rig.open(deviceA);
            ctxB = rig.open(deviceB);
            pdA = domainVerbs.allocPd(ctxA);
            pdB = domainVerbs.allocPd(ctxB);
            cqA = cqVerbs.createCq(ctxA, 64, null, 0);
            cqB = cqVerbs.createCq(ctxB, 64, null, 0);
            a = rig.qp(ctxA, pdA, cqA, type);
            b = rig.qp(ctxB, pdB, cqB, type);
            mrA = rig.register(pdA, bufA);
            mrB = rig.register(pdB, bufB);
            rig.connect(a, ctxA, b, ctxB, rnrRetry);
        }
    }

    @AfterEach
    void close() {
        rig.close();
    }

    private static void put(MemorySegment seg, long offset, String text) {
        byte[] bytes = text.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        MemorySegment.copy(bytes, 0, seg, ValueLayout.JAVA_BYTE, offset, bytes.length);
    }

    @Test
    void aSendLandsByteForByteInThePostedReceiveAndBothSidesComplete() {
        Pair p = new Pair("rxe0", "rxe0", QpType.RC, 7);
        put(p.bufA, 0, "hello rxe");
        rig.receive(p.b, 100, p.bufB.asSlice(1024), 64, p.mrB);

        rig.post(p.a, SendOpcode.SEND, 101, p.bufA, 9, p.mrA, SendFlag.SIGNALED);

        assertThat(VerbsRig.read(p.bufB, 1024, 9)).isEqualTo("hello rxe");
        assertThat(rig.poll(p.cqB)).containsExactly(new VerbsRig.Wc(100, WcStatus.SUCCESS, WcOpcode.RECV, 9, 0,
                p.b.qpNum(), 0, WcFlag.GRH));
        assertThat(rig.poll(p.cqA)).containsExactly(new VerbsRig.Wc(101, WcStatus.SUCCESS, WcOpcode.SEND, 9, 0,
                p.a.qpNum(), 0, 0));
    }

    @Test
    void sendWithImmediateCrossesDevicesAndDeliversTheImmediateInHostOrder() {
        Pair p = new Pair("rxe0", "rxe1", QpType.RC, 7);
        put(p.bufA, 0, "across");
        rig.receive(p.b, 1, p.bufB, 64, p.mrB);

        rig.post(p.a, SendOpcode.SEND_WITH_IMM, 2, p.bufA, 6, p.mrA, SendFlag.SIGNALED);

        assertThat(VerbsRig.read(p.bufB, 0, 6)).isEqualTo("across");
        VerbsRig.Wc recv = rig.poll(p.cqB).getFirst();
        assertThat(recv.immediate()).isEqualTo(0x11223344);
        assertThat(recv.flags()).isEqualTo(WcFlag.GRH | WcFlag.WITH_IMM);
        assertThat(rig.poll(p.cqA)).singleElement().satisfies(send -> {
            assertThat(send.opcode()).isEqualTo(WcOpcode.SEND);
            assertThat(send.flags()).as("rxe flags the send completion too").isEqualTo(WcFlag.WITH_IMM);
        });
    }

    @Test
    void rdmaWriteAndReadMoveBytesWithoutReceiveWrs() {
        Pair p = new Pair("rxe0", "rxe1", QpType.RC, 7);
        put(p.bufA, 0, "0123456789abcdef");

        rig.rdma(p.a, SendOpcode.RDMA_WRITE, 10, p.bufA, 16, p.mrA, p.bufB.address() + 2048, p.mrB.rkey(),
                SendFlag.SIGNALED);
        assertThat(VerbsRig.read(p.bufB, 2048, 16)).isEqualTo("0123456789abcdef");

        put(p.bufB, 3000, "read me back....");
        rig.rdma(p.a, SendOpcode.RDMA_READ, 11, p.bufA.asSlice(512), 16, p.mrA, p.bufB.address() + 3000,
                p.mrB.rkey(), SendFlag.SIGNALED);
        assertThat(VerbsRig.read(p.bufA, 512, 16)).isEqualTo("read me back....");

        assertThat(rig.poll(p.cqA)).extracting(VerbsRig.Wc::wrId, VerbsRig.Wc::opcode, VerbsRig.Wc::byteLength)
                .containsExactly(tuple(10L, WcOpcode.RDMA_WRITE, 16), tuple(11L, WcOpcode.RDMA_READ, 16));
        assertThat(rig.poll(p.cqB)).as("plain RDMA is invisible to the responder").isEmpty();
    }

    @Test
    void rdmaWriteWithImmediateConsumesAReceiveWr() {
        Pair p = new Pair("rxe0", "rxe0", QpType.RC, 7);
        put(p.bufA, 0, "imm-write");
        rig.receive(p.b, 20, p.bufB, 8, p.mrB);

        rig.rdma(p.a, SendOpcode.RDMA_WRITE_WITH_IMM, 21, p.bufA, 9, p.mrA, p.bufB.address() + 100, p.mrB.rkey(),
                SendFlag.SIGNALED);

        assertThat(VerbsRig.read(p.bufB, 100, 9)).isEqualTo("imm-write");
        assertThat(rig.poll(p.cqB)).containsExactly(new VerbsRig.Wc(20, WcStatus.SUCCESS,
                WcOpcode.RECV_RDMA_WITH_IMM, 9, 0x55667788, p.b.qpNum(), 0, WcFlag.GRH | WcFlag.WITH_IMM));
    }

    @Test
    void anUnsignaledSendCompletesOnlyAtTheReceiver() {
        Pair p = new Pair("rxe0", "rxe0", QpType.RC, 7);
        rig.receive(p.b, 30, p.bufB, 64, p.mrB);
        rig.post(p.a, SendOpcode.SEND, 31, p.bufA, 8, p.mrA, 0);
        assertThat(rig.poll(p.cqA)).isEmpty();
        assertThat(rig.poll(p.cqB)).extracting(VerbsRig.Wc::wrId).containsExactly(30L);
    }

    @Test
    void signalAllCompletesEverySend() {
        ContextHandle ctx = rig.open("rxe0");
        PdHandle pd = domainVerbs.allocPd(ctx);
        CqHandle cq = cqVerbs.createCq(ctx, 16, null, 0);
        QpHandle qp = qpVerbs.createQp(ctx, new io.rdmaverbs.verbs.provider.QpInitSpec(QpType.RC, pd, null, cq, cq,
                null, io.rdmaverbs.verbs.attr.QpCapabilities.of(4, 4), true));
        MemorySegment buf = rig.buffer(64);
        MrHandle mr = rig.register(pd, buf);
        rig.loopback(qp, ctx);
        rig.receive(qp, 1, buf, 64, mr);
        rig.post(qp, SendOpcode.SEND, 2, buf, 4, mr, 0);
        assertThat(rig.poll(cq)).extracting(VerbsRig.Wc::wrId).containsExactly(1L, 2L);
    }

    @Test
    void aSendWithoutAReceiveWrWaitsWithInfiniteRnrRetryAndTheWrsBehindItWaitToo() {
        Pair p = new Pair("rxe0", "rxe1", QpType.RC, 7);
        put(p.bufA, 0, "first");
        put(p.bufA, 8, "second");
        rig.post(p.a, SendOpcode.SEND, 40, p.bufA, 5, p.mrA, SendFlag.SIGNALED);
        rig.post(p.a, SendOpcode.SEND, 41, p.bufA.asSlice(8), 6, p.mrA, SendFlag.SIGNALED);
        assertThat(rig.poll(p.cqA)).isEmpty();

        rig.receive(p.b, 42, p.bufB, 64, p.mrB);
        assertThat(VerbsRig.read(p.bufB, 0, 5)).isEqualTo("first");
        assertThat(rig.poll(p.cqA)).extracting(VerbsRig.Wc::wrId).containsExactly(40L);

        rig.receive(p.b, 43, p.bufB.asSlice(100), 64, p.mrB);
        assertThat(VerbsRig.read(p.bufB, 100, 6)).isEqualTo("second");
        assertThat(rig.poll(p.cqA)).extracting(VerbsRig.Wc::wrId).containsExactly(41L);
        assertThat(rig.poll(p.cqB)).extracting(VerbsRig.Wc::wrId).containsExactly(42L, 43L);
    }

    @Test
    void withoutRnrRetriesAMissingReceiveWrFailsTheSendAndTheQp() {
        Pair p = new Pair("rxe0", "rxe0", QpType.RC, 0);
        rig.post(p.a, SendOpcode.SEND, 50, p.bufA, 8, p.mrA, SendFlag.SIGNALED);
        assertThat(rig.poll(p.cqA)).extracting(VerbsRig.Wc::wrId, VerbsRig.Wc::status)
                .containsExactly(tuple(50L, WcStatus.RNR_RETRY_EXC_ERR));
        assertThat(qpVerbs.queryQp(p.a).state()).isEqualTo(QpState.ERR);
    }

    @Test
    void aPeerThatIsNotReadyToReceiveExhaustsTheTransportRetries() {
        ContextHandle ctx = rig.open("rxe0");
        PdHandle pd = domainVerbs.allocPd(ctx);
        CqHandle cq = cqVerbs.createCq(ctx, 16, null, 0);
        QpHandle a = rig.qp(ctx, pd, cq, QpType.RC);
        QpHandle b = rig.qp(ctx, pd, cq, QpType.RC);
        MemorySegment buf = rig.buffer(64);
        MrHandle mr = rig.register(pd, buf);
        qpVerbs.modifyQp(a, io.rdmaverbs.verbs.attr.QpModification.init(1, 0, java.util.EnumSet.noneOf(
                io.rdmaverbs.verbs.attr.AccessFlag.class)));
        qpVerbs.modifyQp(b, io.rdmaverbs.verbs.attr.QpModification.init(1, 0, java.util.EnumSet.noneOf(
                io.rdmaverbs.verbs.attr.AccessFlag.class)));
        rig.rtr(a, rig.addressOf(ctx), b.qpNum());
        qpVerbs.modifyQp(a, VerbsRig.rts(QpType.RC, 7));

        rig.post(a, SendOpcode.SEND, 60, buf, 8, mr, SendFlag.SIGNALED);

        assertThat(rig.poll(cq)).extracting(VerbsRig.Wc::wrId, VerbsRig.Wc::status)
                .containsExactly(tuple(60L, WcStatus.RETRY_EXC_ERR));
    }

    @Test
    void writingToAQpWithoutRemoteWriteAccessIsAnInvalidRequestOnRxe() {
        ContextHandle ctx = rig.open("rxe0");
        PdHandle pd = domainVerbs.allocPd(ctx);
        CqHandle cq = cqVerbs.createCq(ctx, 16, null, 0);
        QpHandle a = rig.qp(ctx, pd, cq, QpType.RC);
        QpHandle b = rig.qp(ctx, pd, cq, QpType.RC);
        MemorySegment buf = rig.buffer(256);
        MrHandle mr = rig.register(pd, buf);
        var none = java.util.EnumSet.noneOf(io.rdmaverbs.verbs.attr.AccessFlag.class);
        qpVerbs.modifyQp(a, io.rdmaverbs.verbs.attr.QpModification.init(1, 0, none));
        qpVerbs.modifyQp(b, io.rdmaverbs.verbs.attr.QpModification.init(1, 0, none));
        rig.rtr(a, rig.addressOf(ctx), b.qpNum());
        rig.rtr(b, rig.addressOf(ctx), a.qpNum());
        qpVerbs.modifyQp(a, VerbsRig.rts(QpType.RC, 7));
        qpVerbs.modifyQp(b, VerbsRig.rts(QpType.RC, 7));

        rig.rdma(a, SendOpcode.RDMA_WRITE, 70, buf, 8, mr, buf.address() + 128, mr.rkey(), SendFlag.SIGNALED);

        assertThat(rig.poll(cq)).extracting(VerbsRig.Wc::wrId, VerbsRig.Wc::status)
                .containsExactly(tuple(70L, WcStatus.REM_INV_REQ_ERR));
        assertThat(qpVerbs.queryQp(b).state()).as("the responder goes to error too").isEqualTo(QpState.ERR);
    }

    @Test
    void aBadRkeyOrAnRkeyWithoutRemoteWriteIsARemoteAccessError() {
        Pair p = new Pair("rxe0", "rxe0", QpType.RC, 7);
        rig.rdma(p.a, SendOpcode.RDMA_WRITE, 80, p.bufA, 8, p.mrA, p.bufB.address(), p.mrB.rkey() + 1,
                SendFlag.SIGNALED);
        assertThat(rig.poll(p.cqA)).extracting(VerbsRig.Wc::status).containsExactly(WcStatus.REM_ACCESS_ERR);

        Pair q = new Pair("rxe0", "rxe1", QpType.RC, 7);
        MrHandle readOnly = mrVerbs.regMr(q.pdB, q.bufB, io.rdmaverbs.verbs.attr.AccessFlag.REMOTE_READ.bit());
        rig.rdma(q.a, SendOpcode.RDMA_WRITE, 81, q.bufA, 8, q.mrA, q.bufB.address(), readOnly.rkey(),
                SendFlag.SIGNALED);
        assertThat(rig.poll(q.cqA)).extracting(VerbsRig.Wc::status).containsExactly(WcStatus.REM_ACCESS_ERR);

        Pair r = new Pair("rxe0", "rxe1", QpType.RC, 7);
        rig.rdma(r.a, SendOpcode.RDMA_WRITE, 82, r.bufA, 8, r.mrA, r.bufB.address() + 4090, r.mrB.rkey(),
                SendFlag.SIGNALED);
        assertThat(rig.poll(r.cqA)).as("past the end of the MR").extracting(VerbsRig.Wc::status)
                .containsExactly(WcStatus.REM_ACCESS_ERR);
    }

    @Test
    void aReceiveBufferTooSmallFailsBothSidesAsRxeDoes() {
        Pair p = new Pair("rxe0", "rxe0", QpType.RC, 7);
        rig.receive(p.b, 90, p.bufB, 4, p.mrB);
        rig.receive(p.b, 91, p.bufB, 64, p.mrB);

        rig.post(p.a, SendOpcode.SEND, 92, p.bufA, 10, p.mrA, SendFlag.SIGNALED);

        // rxe 6.1 treats the short buffer as a malformed WQE (observed), not LOC_LEN_ERR.
        assertThat(rig.poll(p.cqB)).extracting(VerbsRig.Wc::wrId, VerbsRig.Wc::status)
                .containsExactly(tuple(90L, WcStatus.LOC_QP_OP_ERR), tuple(91L, WcStatus.WR_FLUSH_ERR));
        assertThat(rig.poll(p.cqA)).extracting(VerbsRig.Wc::wrId, VerbsRig.Wc::status)
                .containsExactly(tuple(92L, WcStatus.REM_OP_ERR));
    }

    @Test
    void aSendWhoseLkeyDoesNotCoverTheBufferFailsLocally() {
        Pair p = new Pair("rxe0", "rxe0", QpType.RC, 7);
        rig.receive(p.b, 95, p.bufB, 64, p.mrB);
        try (SendWr wr = qpVerbs.newSendWr(1)) {
            wr.wrId(96);
            wr.opcode(SendOpcode.SEND);
            wr.flags(SendFlag.SIGNALED);
            wr.sge(0, p.bufA.address() + 4090, 16, p.mrA.lkey());
            wr.sgeCount(1);
            qpVerbs.postSend(p.a, wr);
        }
        assertThat(rig.poll(p.cqA)).extracting(VerbsRig.Wc::wrId, VerbsRig.Wc::status)
                .containsExactly(tuple(96L, WcStatus.LOC_QP_OP_ERR));
        assertThat(rig.poll(p.cqB)).as("nothing was sent").isEmpty();
    }

    @Test
    void anHcaReportsTheSpecificationsStatusesAndSourceQp() {
        try (VerbsRig hcas = new VerbsRig(DeviceProfile.mlx5Infiniband("mlx5_0"),
                DeviceProfile.mlx5Infiniband("mlx5_1"))) {
            ContextHandle c0 = hcas.open("mlx5_0");
            ContextHandle c1 = hcas.open("mlx5_1");
            PdHandle p0 = hcas.provider.domainVerbs().allocPd(c0);
            PdHandle p1 = hcas.provider.domainVerbs().allocPd(c1);
            CqHandle q0 = hcas.provider.completionVerbs().createCq(c0, 16, null, 0);
            CqHandle q1 = hcas.provider.completionVerbs().createCq(c1, 16, null, 0);
            QpHandle a = hcas.qp(c0, p0, q0, QpType.RC);
            QpHandle b = hcas.qp(c1, p1, q1, QpType.RC);
            MemorySegment b0 = hcas.buffer(64);
            MemorySegment b1 = hcas.buffer(64);
            MrHandle m0 = hcas.register(p0, b0);
            MrHandle m1 = hcas.register(p1, b1);
            hcas.connect(a, c0, b, c1); // by LID: InfiniBand needs no GRH
            hcas.receive(b, 1, b1, 64, m1);
            hcas.post(a, SendOpcode.SEND, 2, b0, 8, m0, SendFlag.SIGNALED);
            assertThat(hcas.poll(q1)).singleElement().satisfies(wc -> {
                assertThat(wc.sourceQp()).isEqualTo(a.qpNum());
                assertThat(wc.flags()).isZero();
            });
            hcas.receive(b, 3, b1, 4, m1);
            hcas.post(a, SendOpcode.SEND, 4, b0, 8, m0, SendFlag.SIGNALED);
            assertThat(hcas.poll(q1)).extracting(VerbsRig.Wc::status).containsExactly(WcStatus.LOC_LEN_ERR);
            assertThat(hcas.poll(q0)).extracting(VerbsRig.Wc::status)
                    .containsExactly(WcStatus.SUCCESS, WcStatus.REM_INV_REQ_ERR);
        }
    }

    @Test
    void qpsSharingAnSrqDrawReceivesFromIt() {
        ContextHandle ctx = rig.open("rxe0");
        PdHandle pd = domainVerbs.allocPd(ctx);
        CqHandle cq = cqVerbs.createCq(ctx, 16, null, 0);
        SrqHandle srq = srqVerbs.createSrq(ctx, new SrqInitSpec(SrqType.BASIC, pd, null, null, 8, 1, 0));
        QpHandle s1 = rig.qp(ctx, pd, cq, QpType.RC);
        QpHandle s2 = rig.qp(ctx, pd, cq, QpType.RC);
        QpHandle r1 = rig.qp(ctx, pd, cq, QpType.RC, srq);
        QpHandle r2 = rig.qp(ctx, pd, cq, QpType.RC, srq);
        rig.connect(s1, ctx, r1, ctx);
        rig.connect(s2, ctx, r2, ctx);
        MemorySegment buf = rig.buffer(256);
        MrHandle mr = rig.register(pd, buf);
        put(buf, 0, "one");
        put(buf, 8, "two");
        rig.receive(srq, 1, buf.asSlice(64), 64, mr);
        rig.receive(srq, 2, buf.asSlice(128), 64, mr);

        rig.post(s1, SendOpcode.SEND, 3, buf, 3, mr, 0);
        rig.post(s2, SendOpcode.SEND, 4, buf.asSlice(8), 3, mr, 0);

        assertThat(VerbsRig.read(buf, 64, 3)).isEqualTo("one");
        assertThat(VerbsRig.read(buf, 128, 3)).isEqualTo("two");
        assertThat(rig.poll(cq)).extracting(VerbsRig.Wc::wrId, VerbsRig.Wc::qpNum)
                .containsExactly(tuple(1L, r1.qpNum()), tuple(2L, r2.qpNum()));
    }

    @Test
    void fetchAndAddReturnsTheOriginalValue() {
        Pair p = new Pair("rxe0", "rxe1", QpType.RC, 7);
        p.bufB.set(ValueLayout.JAVA_LONG_UNALIGNED, 64, 5L);
        rig.rdma(p.a, SendOpcode.ATOMIC_FETCH_AND_ADD, 5, p.bufA.asSlice(256), 8, p.mrA, p.bufB.address() + 64,
                p.mrB.rkey(), SendFlag.SIGNALED);
        assertThat(p.bufA.get(ValueLayout.JAVA_LONG_UNALIGNED, 256)).isEqualTo(5L);
        assertThat(rig.poll(p.cqA)).extracting(VerbsRig.Wc::opcode, VerbsRig.Wc::byteLength)
                .containsExactly(tuple(WcOpcode.FETCH_ADD, 8));
    }

    @Test
    void inlineDataNeedsNoMemoryRegistration() {
        Pair p = new Pair("rxe0", "rxe0", QpType.RC, 7);
        MemorySegment unregistered = rig.text("inline!");
        rig.receive(p.b, 1, p.bufB, 64, p.mrB);
        try (SendWr wr = qpVerbs.newSendWr(1)) {
            wr.opcode(SendOpcode.SEND);
            wr.flags(SendFlag.INLINE | SendFlag.SIGNALED);
            wr.sge(0, unregistered.address(), 7, 0);
            wr.sgeCount(1);
            qpVerbs.postSend(p.a, wr);
        }
        assertThat(VerbsRig.read(p.bufB, 0, 7)).isEqualTo("inline!");
    }

    @Test
    void ucLosesAMessageNobodyReceivesButTheSenderStillCompletes() {
        Pair p = new Pair("rxe0", "rxe0", QpType.UC, 7);
        rig.post(p.a, SendOpcode.SEND, 1, p.bufA, 8, p.mrA, SendFlag.SIGNALED);
        assertThat(rig.poll(p.cqA)).extracting(VerbsRig.Wc::status).containsExactly(WcStatus.SUCCESS);
        assertThat(rig.poll(p.cqB)).isEmpty();
        rig.receive(p.b, 2, p.bufB, 64, p.mrB);
        assertThat(rig.poll(p.cqB)).as("a lost UC message is not retried").isEmpty();
    }

    @Test
    void destroyingTheResponderFailsTheWaitingRequester() {
        Pair p = new Pair("rxe0", "rxe1", QpType.RC, 7);
        rig.post(p.a, SendOpcode.SEND, 1, p.bufA, 8, p.mrA, SendFlag.SIGNALED);
        qpVerbs.destroyQp(p.b);
        assertThat(rig.poll(p.cqA)).extracting(VerbsRig.Wc::status).containsExactly(WcStatus.RETRY_EXC_ERR);
    }
}
