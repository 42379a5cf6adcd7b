package io.rdmaverbs.verbs.provider.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.attr.SendFlag;
import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.attr.WcFlag;
import io.rdmaverbs.verbs.attr.WcOpcode;
import io.rdmaverbs.verbs.attr.WcStatus;
import io.rdmaverbs.verbs.attr.WorkCompletions;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.PostFailedException;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.CompletionVerbs;
import io.rdmaverbs.verbs.provider.CqExPoller;
import io.rdmaverbs.verbs.provider.QpExOps;
import io.rdmaverbs.verbs.provider.QueuePairVerbs;
import io.rdmaverbs.verbs.provider.RecvWr;
import io.rdmaverbs.verbs.provider.SendWr;
import io.rdmaverbs.verbs.provider.SharedReceiveQueueVerbs;
import io.rdmaverbs.verbs.provider.WorkRequestChain;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The data path (poll, notify, post) through real native calls: the ops of a fake context are the
 * C functions of {@code src/test/c/fake_ops.c}, which record what they receive and answer the way
 * providers do. The ops are read from {@code cq->context->ops} exactly as for a real CQ, QP or SRQ.
 */
class NativeDataPathTest {

    private static SymbolLookup fakeOps;

    private final NativeVerbsProvider provider = NativeVerbsProvider.load();
    private final CompletionVerbs cqVerbs = provider.completionVerbs();
    private final SharedReceiveQueueVerbs srqVerbs = provider.sharedReceiveQueueVerbs();
    private final QueuePairVerbs qpVerbs = provider.queuePairVerbs();
    private final Arena arena = Arena.ofConfined();
    private final FakeVerbsContext device = new FakeVerbsContext(arena);
    private final NativeContext context = device.handle(provider, "rxe0");
    private NativeCq cq;
    private NativeQp qp;
    private NativeSrq srq;

    @BeforeAll
    static void buildFakeOps() throws Exception {
        NativePrerequisites.require(CCompiler.unavailable());
        Path library = CCompiler.sharedLibrary("fake_ops.c");
        fakeOps = SymbolLookup.libraryLookup(library, Arena.global());
    }

    @BeforeEach
    void createObjects() {
        device.contextOp(IbvContextOps.POLL_CQ, function("fake_poll_cq"))
                .contextOp(IbvContextOps.REQ_NOTIFY_CQ, function("fake_req_notify_cq"))
                .contextOp(IbvContextOps.POST_SEND, function("fake_post_send"))
                .contextOp(IbvContextOps.POST_RECV, function("fake_post_recv"))
                .contextOp(IbvContextOps.POST_SRQ_RECV, function("fake_post_srq_recv"));
        MemorySegment cqObject = device.object(IbvCq.LAYOUT);
        cq = new NativeCq(provider, cqObject, context, 16, null,
                InlineVerbs.contextOp(cqObject, IbvCq.CONTEXT, IbvContextOps.POLL_CQ),
                InlineVerbs.contextOp(cqObject, IbvCq.CONTEXT, IbvContextOps.REQ_NOTIFY_CQ));
        MemorySegment qpObject = device.object(IbvQp.LAYOUT);
        // Granted more than asked, as a provider that rounds the queue up answers.
        qp = new NativeQp(provider, qpObject, context, QpType.RC, 0x11, QpCapabilities.of(5, 5), QpCapabilities.of(8, 8),
                InlineVerbs.contextOp(qpObject, IbvQp.CONTEXT, IbvContextOps.POST_SEND),
                InlineVerbs.contextOp(qpObject, IbvQp.CONTEXT, IbvContextOps.POST_RECV));
        MemorySegment srqObject = device.object(IbvSrq.LAYOUT);
        srq = new NativeSrq(provider, srqObject, context, 0,
                InlineVerbs.contextOp(srqObject, IbvSrq.CONTEXT, IbvContextOps.POST_SRQ_RECV));
    }

    @AfterEach
    void freeFakeDevice() {
        arena.close();
    }

    @Test
    void pollCqFillsTheCompletionBufferThroughTheProvidersOp() {
        try (WorkCompletions wc = cqVerbs.newWorkCompletions(4)) {
            int n = cqVerbs.pollCq(cq, wc, 4);

            assertThat(n).isEqualTo(2);
            assertThat(global("last_poll_entries", 4).get(JAVA_INT, 0)).isEqualTo(4);
            assertThat(wc.wrId(0)).isEqualTo(1000);
            assertThat(wc.status(0)).isEqualTo(WcStatus.SUCCESS);
            assertThat(wc.opcode(0)).isEqualTo(WcOpcode.RECV);
            assertThat(wc.byteLength(0)).isEqualTo(4096);
            assertThat(wc.immediateData(0)).as("ntohl(imm_data)").isEqualTo(0xCAFE_0000);
            assertThat(wc.qpNum(0)).isEqualTo(0x123456);
            assertThat(wc.sourceQp(0)).isEqualTo(0x654321);
            assertThat(wc.wcFlags(0)).isEqualTo(WcFlag.WITH_IMM | WcFlag.GRH);
            assertThat(wc.pkeyIndex(0)).isEqualTo(0xFFFF);
            assertThat(wc.sourceLid(0)).isEqualTo(0xBEEF);
            assertThat(wc.status(1)).isEqualTo(WcStatus.REM_ACCESS_ERR);
            assertThat(wc.opcode(1)).isEqualTo(WcOpcode.RDMA_WRITE);
            assertThat(wc.immediateData(1)).isEqualTo(0xCAFE_0001);
        }
    }

    @Test
    void aCqInErrorFailsThePollWithoutAnErrno() {
        MemorySegment cqObject = device.object(IbvCq.LAYOUT);
        NativeCq broken = new NativeCq(provider, cqObject, context, 16, null, function("fake_poll_cq_error"),
                MemorySegment.NULL);
        try (WorkCompletions wc = cqVerbs.newWorkCompletions(4)) {
            assertThatThrownBy(() -> cqVerbs.pollCq(broken, wc, 4))
                    .isInstanceOfSatisfying(VerbsException.class, e -> {
                        assertThat(e.verb()).isEqualTo("ibv_poll_cq");
                        assertThat(e.errno()).isNull();
                        assertThat(e.reason()).contains("-2");
                    });
        }
    }

    /**
     * Arming reads its failure from the value {@code req_notify_cq} returned ({@code ibv_req_notify_cq(3)}),
     * positive or negated, and never from errno, which the fake leaves as ENOTTY: two threads failing at once,
     * on the owner's and the shared path, each report their own.
     */
    @Test
    void armingFailuresOfTwoThreadsAtOnceEachReportTheirOwnErrno() throws Exception {
        // Global, as a CQ libibverbs allocated is: this test's arena is confined to its thread.
        MemorySegment object = device.object(IbvCq.LAYOUT);
        MemorySegment cqObject = MemorySegment.ofAddress(object.address()).reinterpret(object.byteSize());
        NativeCq failing = new NativeCq(provider, cqObject, context, 16, null, function("fake_poll_cq"),
                function("fake_req_notify_cq_fails"));
        int rounds = 50_000;
        // This thread arms first, so it owns the arming guard; the other takes the shared path.
        assertThat(armingErrno(failing, false)).isEqualTo(Errno.EIO);
        CompletableFuture<Integer> other = CompletableFuture.supplyAsync(
                () -> mismatches(failing, true, Errno.EAGAIN, rounds),
                command -> Thread.ofPlatform().start(command));
        int mine = mismatches(failing, false, Errno.EIO, rounds);

        assertThat(mine).as("the owner's failures reading another errno than EIO").isZero();
        assertThat(other.get(60, TimeUnit.SECONDS))
                .as("the other thread's failures reading another errno than EAGAIN").isZero();
    }

    private int mismatches(NativeCq failing, boolean solicitedOnly, Errno expected, int rounds) {
        int wrong = 0;
        for (int i = 0; i < rounds; i++) {
            if (armingErrno(failing, solicitedOnly) != expected) {
                wrong++;
            }
        }
        return wrong;
    }

    private @Nullable Errno armingErrno(NativeCq failing, boolean solicitedOnly) {
        try {
            cqVerbs.reqNotifyCq(failing, solicitedOnly);
            throw new AssertionError("ibv_req_notify_cq did not fail");
        } catch (VerbsException e) {
            assertThat(e.verb()).isEqualTo("ibv_req_notify_cq");
            return e.errno();
        }
    }

    @Test
    void reqNotifyCqPassesSolicitedOnly() {
        cqVerbs.reqNotifyCq(cq, true);
        assertThat(global("last_solicited_only", 4).get(JAVA_INT, 0)).isEqualTo(1);

        cqVerbs.reqNotifyCq(cq, false);
        assertThat(global("last_solicited_only", 4).get(JAVA_INT, 0)).isZero();
    }

    @Test
    void postSendHandsTheProviderTheEncodedRequestAndItsSges() {
        try (SendWr wr = qpVerbs.newSendWr(2)) {
            wr.wrId(77);
            wr.opcode(SendOpcode.SEND_WITH_IMM);
            wr.flags(SendFlag.SIGNALED);
            wr.immediateData(0x0A0B_0C0D);
            wr.sge(0, 0x1000, 100, 0x11);
            wr.sge(1, 0x2000, 200, 0x22);
            wr.sgeCount(2);

            qpVerbs.postSend(qp, wr);
        }

        MemorySegment seen = global("last_send_wr", IbvSendWr.SIZE);
        MemorySegment sges = global("last_send_sge", 2 * IbvSge.SIZE);
        assertThat(global("last_send_qp", 8).get(ADDRESS, 0).address()).isEqualTo(qp.pointer().address());
        assertThat(seen.get(JAVA_LONG, 0)).isEqualTo(77);
        assertThat(seen.get(JAVA_INT, 24)).as("num_sge").isEqualTo(2);
        assertThat(seen.get(JAVA_INT, 28)).as("opcode").isEqualTo(SendOpcode.SEND_WITH_IMM.value());
        assertThat(seen.asSlice(36, 4).toArray(JAVA_BYTE)).as("imm_data, network order").containsExactly(10, 11, 12, 13);
        assertThat(sges.get(JAVA_LONG, 16)).isEqualTo(0x2000);
        assertThat(sges.get(JAVA_INT, 24)).isEqualTo(200);
        assertThat(sges.get(JAVA_INT, 28)).isEqualTo(0x22);
    }

    @Test
    void aProviderReturningTheErrnoFailsThePostWithIt() {
        try (SendWr wr = qpVerbs.newSendWr(9)) {
            wr.sgeCount(9);

            assertThatThrownBy(() -> qpVerbs.postSend(qp, wr))
                    .isInstanceOfSatisfying(VerbsException.class, e -> {
                        assertThat(e.verb()).isEqualTo("ibv_post_send");
                        assertThat(e.errno()).isEqualTo(Errno.ENOMEM);
                        assertThat(e.reason()).contains("queue is full")
                                .contains("max_send_wr 5 requested, 8 granted by the create")
                                .doesNotContain("requests are outstanding");
                    });
        }
    }

    @Test
    void aProviderReturningMinusOneFailsThePostWithTheErrnoItSet() {
        try (RecvWr wr = qpVerbs.newRecvWr(1)) {
            assertThatThrownBy(() -> qpVerbs.postRecv(qp, wr))
                    .isInstanceOfSatisfying(VerbsException.class, e -> {
                        assertThat(e.verb()).isEqualTo("ibv_post_recv");
                        assertThat(e.errno()).isEqualTo(Errno.EINVAL);
                    });
        }
    }

    @Test
    void aProviderReturningMinusErrnoFailsThePostWithThatErrno() {
        try (RecvWr wr = qpVerbs.newRecvWr(1)) {
            wr.wrId(5);
            assertThatThrownBy(() -> srqVerbs.postSrqRecv(srq, wr))
                    .isInstanceOfSatisfying(VerbsException.class, e -> {
                        assertThat(e.verb()).isEqualTo("ibv_post_srq_recv");
                        assertThat(e.errno()).isEqualTo(Errno.EBUSY);
                    });
            assertThat(global("last_recv_wr", IbvRecvWr.SIZE).get(JAVA_LONG, 0)).isEqualTo(5);
        }
    }

    @Test
    void postingAndPollingAllocateNothingOnceCompiled() {
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long thread = Thread.currentThread().threadId();
        try (SendWr send = qpVerbs.newSendWr(1); RecvWr recv = qpVerbs.newRecvWr(1);
                WorkCompletions wc = cqVerbs.newWorkCompletions(4)) {
            send.sge(0, 0x1000, 64, 1);
            send.sgeCount(1);
            recv.sge(0, 0x1000, 64, 1);
            recv.sgeCount(1);
            // The JIT needs a while to compile (and stop allocating in) the downcall stubs; the best
            // of several rounds is the steady state.
            long fewest = Long.MAX_VALUE;
            for (int round = 0; round < 20 && fewest > 0; round++) {
                long before = threads.getThreadAllocatedBytes(thread);
                for (int i = 0; i < 50_000; i++) {
                    dataPath(send, recv, wc, i);
                }
                fewest = Math.min(fewest, threads.getThreadAllocatedBytes(thread) - before);
            }

            assertThat(fewest).as("bytes allocated by 50000 post/post/poll rounds, once compiled").isZero();
        }
    }

    @Test
    void aSendChainReachesTheProviderAsOneCallWalkingTheNextLinksInOrder() {
        try (WorkRequestChain<SendWr> chain = qpVerbs.newSendChain(8, 1)) {
            for (int i = 0; i < 5; i++) {
                SendWr wr = chain.request(i);
                wr.wrId(100 + i);
                wr.sge(0, 0x1000 + i * 64L, 64, 0x11);
                wr.sgeCount(1);
            }
            chain.length(5);

            qpVerbs.postSend(qp, chain);

            assertThat(global("send_chain_length", 4).get(JAVA_INT, 0)).isEqualTo(5);
            assertThat(global("send_chain_wr_ids", 5 * 8L).toArray(JAVA_LONG)).containsExactly(100, 101, 102, 103, 104);

            chain.length(2);
            qpVerbs.postSend(qp, chain);
            assertThat(global("send_chain_length", 4).get(JAVA_INT, 0)).as("a shortened chain ends where it says")
                    .isEqualTo(2);

            chain.length(8);
            qpVerbs.postSend(qp, chain);
            assertThat(global("send_chain_length", 4).get(JAVA_INT, 0)).as("and grows back to every slot").isEqualTo(8);
        }
    }

    @Test
    void aFailedChainNamesTheRequestBadWrPointsAt() {
        try (WorkRequestChain<SendWr> chain = qpVerbs.newSendChain(6, 9)) {
            chain.length(6);
            chain.request(3).sgeCount(9);

            assertThatThrownBy(() -> qpVerbs.postSend(qp, chain))
                    .isInstanceOfSatisfying(PostFailedException.class, e -> {
                        assertThat(e.verb()).isEqualTo("ibv_post_send");
                        assertThat(e.errno()).isEqualTo(Errno.ENOMEM);
                        assertThat(e.failedIndex()).isEqualTo(3);
                        assertThat(e.posted()).isEqualTo(3);
                        assertThat(e.chainLength()).isEqualTo(6);
                        assertThat(e.getMessage()).contains("request 3 of a chain of 6")
                                .contains("requests 0..2 were posted");
                    });
        }
    }

    @Test
    void aReceiveChainFailingThroughErrnoNamesItsBadWrToo() {
        try (WorkRequestChain<RecvWr> chain = qpVerbs.newRecvChain(4, 1)) {
            for (int i = 0; i < 4; i++) {
                chain.request(i).sge(0, 0x1000, 64, 1);
                chain.request(i).sgeCount(i == 2 ? 0 : 1);
            }
            chain.length(4);

            assertThatThrownBy(() -> qpVerbs.postRecv(qp, chain))
                    .isInstanceOfSatisfying(PostFailedException.class, e -> {
                        assertThat(e.errno()).isEqualTo(Errno.EINVAL);
                        assertThat(e.failedIndex()).isEqualTo(2);
                    });
            assertThat(global("recv_chain_length", 4).get(JAVA_INT, 0)).isEqualTo(2);
        }
    }

    @Test
    void aSlotOfAChainIsClosedOnlyWithItsChain() {
        WorkRequestChain<SendWr> chain = qpVerbs.newSendChain(2, 1);
        assertThatThrownBy(() -> chain.request(0).close()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("close the chain");
        chain.length(1);
        chain.close();
        assertThatThrownBy(() -> qpVerbs.postSend(qp, chain)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
    }

    @Test
    void postingAChainAllocatesNothingOnceCompiled() {
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long thread = Thread.currentThread().threadId();
        try (WorkRequestChain<SendWr> sends = qpVerbs.newSendChain(16, 1);
                WorkRequestChain<RecvWr> recvs = qpVerbs.newRecvChain(16, 1)) {
            for (int i = 0; i < 16; i++) {
                sends.request(i).sge(0, 0x1000, 64, 1);
                sends.request(i).sgeCount(1);
                recvs.request(i).sge(0, 0x1000, 64, 1);
                recvs.request(i).sgeCount(1);
            }
            long fewest = Long.MAX_VALUE;
            for (int round = 0; round < 20 && fewest > 0; round++) {
                long before = threads.getThreadAllocatedBytes(thread);
                for (int i = 0; i < 20_000; i++) {
                    sends.length(16 - (i & 7));
                    qpVerbs.postSend(qp, sends);
                    recvs.length(1 + (i & 15));
                    qpVerbs.postRecv(qp, recvs);
                }
                fewest = Math.min(fewest, threads.getThreadAllocatedBytes(thread) - before);
            }

            assertThat(fewest).as("bytes allocated by 20000 chain posts, once compiled").isZero();
        }
    }

    @Test
    void anExtendedCqIsPolledThroughItsOwnFunctionPointers() throws Throwable {
        MemorySegment cqEx = device.object(IbvCqEx.LAYOUT);
        fakeOps.find("fake_fill_cq_ex").map(f -> java.lang.foreign.Linker.nativeLinker().downcallHandle(f,
                java.lang.foreign.FunctionDescriptor.ofVoid(ADDRESS))).orElseThrow().invokeExact(cqEx);
        NativeCq extended = new NativeCq(provider, cqEx, context, 16, null,
                InlineVerbs.contextOp(cqEx, IbvCq.CONTEXT, IbvContextOps.POLL_CQ), MemorySegment.NULL);
        extended.extend(cqEx);
        CqExPoller poller = cqVerbs.cqExPoller(extended);
        int endedBefore = global("fake_cq_ex_ended", 4).get(JAVA_INT, 0);

        assertThat(poller.startPoll()).isZero();
        assertThat(poller.wrId()).isEqualTo(500);
        assertThat(poller.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(poller.readOpcode()).isEqualTo(WcOpcode.RECV_RDMA_WITH_IMM);
        assertThat(poller.readByteLen()).isEqualTo(4096);
        assertThat(poller.readImmData()).as("ntohl(read_imm_data)").isEqualTo(0xCAFE_0000);
        assertThat(poller.readQpNum()).isEqualTo(0x123456);
        assertThat(poller.readSrcQp()).isEqualTo(0x654321);
        assertThat(poller.readWcFlags()).isEqualTo(WcFlag.WITH_IMM);
        assertThat(poller.readVendorErr()).isEqualTo(7);
        assertThat(poller.readSlid()).isEqualTo(0xBEEF);
        assertThat(poller.readSl()).as("uint8_t, unsigned").isEqualTo(0xF3);
        assertThat(poller.readDlidPathBits()).isEqualTo(0x7F);
        assertThat(poller.readCompletionWallclockNs()).isEqualTo(0x1122334455667788L);
        assertThatThrownBy(poller::readCompletionTs).as("a NULL read function is refused, not called")
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("read_completion_ts");

        assertThat(poller.nextPoll()).isZero();
        assertThat(poller.wrId()).isEqualTo(501);
        assertThat(poller.status()).isEqualTo(WcStatus.WR_FLUSH_ERR);
        assertThat(poller.readByteLen()).isEqualTo(4097);
        assertThat(poller.nextPoll()).isEqualTo(Errno.ENOENT.number());
        poller.endPoll();
        assertThat(global("fake_cq_ex_ended", 4).get(JAVA_INT, 0)).isEqualTo(endedBefore + 1);
        assertThatThrownBy(() -> cqVerbs.cqExPoller(cq)).as("a classic CQ has no poller")
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theNewPostApiCallsTheQpsOwnBuildersAndSetters() throws Throwable {
        MemorySegment qpEx = device.object(IbvQpEx.LAYOUT);
        fakeOps.find("fake_fill_qp_ex").map(f -> java.lang.foreign.Linker.nativeLinker().downcallHandle(f,
                java.lang.foreign.FunctionDescriptor.ofVoid(ADDRESS))).orElseThrow().invokeExact(qpEx);
        NativeQp extended = new NativeQp(provider, qpEx, context, QpType.RC, 0x22, QpCapabilities.of(8, 8),
                QpCapabilities.of(8, 8), MemorySegment.NULL, MemorySegment.NULL);
        extended.extend(new NativeQpExOps(provider, extended, qpEx, 2));
        QpExOps ops = qpVerbs.qpExOps(extended);

        ops.wrStart();
        ops.wrId(42);
        ops.wrFlags(SendFlag.SIGNALED);
        ops.send();
        ops.setSge(0x11, 0x1000, 64);
        ops.sendImm(0x0A0B0C0D);
        ops.rdmaWriteImm(0x33, 0x2000, 0x01020304);
        ops.setSgeList(2, new long[] {0x3000, 0x4000}, new int[] {8, 16}, new int[] {0x44, 0x55});
        ops.atomicFetchAdd(0x66, 0x5000, 7);
        ops.atomicCmpSwp(0x66, 0x5008, 1, 2);
        ops.setXrcSrqn(9);
        try (Arena data = Arena.ofConfined()) {
            MemorySegment bytes = data.allocateFrom(JAVA_BYTE, (byte) 0x5A, (byte) 1, (byte) 2);
            ops.setInlineData(bytes.address(), 3);
        }
        assertThat(ops.wrComplete()).isZero();

        assertThat(global("fake_qp_ex_log", 1024).getString(0)).isEqualTo("start;send:42,2;sge:11,1000,64;"
                + "send_imm:a0b0c0d;rdma_write_imm:33,2000,1020304;sge_list:44,3000,8;sge_list:55,4000,16;"
                + "fetch_add:66,5000,7;cmp_swp:5008,1,2;xrc_srqn:9;inline:3,90;complete;");
        assertThatThrownBy(() -> ops.rdmaRead(1, 2)).as("a NULL builder is refused, not called")
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("wr_rdma_read");
        global("fake_qp_ex_rc", 4).set(JAVA_INT, 0, Errno.ENOSPC.number());
        ops.wrStart();
        assertThat(ops.wrComplete()).isEqualTo(Errno.ENOSPC.number());
        global("fake_qp_ex_rc", 4).set(JAVA_INT, 0, 0);
        assertThatThrownBy(() -> qpVerbs.qpExOps(qp)).isInstanceOf(IllegalArgumentException.class);
    }

    private void dataPath(SendWr send, RecvWr recv, WorkCompletions wc, int i) {
        send.wrId(i);
        qpVerbs.postSend(qp, send);
        recv.wrId(i);
        qpVerbs.postRecv(qp, recv);
        cqVerbs.pollCq(cq, wc, 4);
    }

    private static MemorySegment function(String name) {
        return fakeOps.find(name).orElseThrow();
    }

    private static MemorySegment global(String name, long size) {
        return fakeOps.find(name).orElseThrow().reinterpret(size);
    }
}
