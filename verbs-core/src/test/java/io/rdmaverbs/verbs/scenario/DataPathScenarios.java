package io.rdmaverbs.verbs.scenario;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import io.rdmaverbs.verbs.CompletionQueue;
import io.rdmaverbs.verbs.CompletionQueueSpec;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.MemoryRegion;
import io.rdmaverbs.verbs.ProtectionDomain;
import io.rdmaverbs.verbs.QueuePair;
import io.rdmaverbs.verbs.QueuePairSpec;
import io.rdmaverbs.verbs.ReceiveRequest;
import io.rdmaverbs.verbs.SendRequest;
import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.SendFlag;
import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.attr.WcOpcode;
import io.rdmaverbs.verbs.attr.WcStatus;
import io.rdmaverbs.verbs.attr.WorkCompletions;

import static io.rdmaverbs.verbs.scenario.Fixtures.LOCAL;
import static org.assertj.core.api.Assertions.assertThat;

/** Atomics and inline sends on an RC loopback pair, and the device limits Java enforces for them. */
final class DataPathScenarios {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final Set<AccessFlag> ATOMIC = EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE,
            AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC);

    private DataPathScenarios() {
    }

    static List<Scenario> all() {
        return List.of(
                new Scenario("fetch-and-add and compare-and-swap on an RC loopback pair return the original value and "
                        + "change the remote 8 bytes", DataPathScenarios::atomics),
                new Scenario("an atomic on a misaligned remote address is refused in Java, before the provider",
                        DataPathScenarios::misalignedAtomicRefused),
                new Scenario("an inline send delivers its bytes; one beyond max_inline_data is refused in Java",
                        DataPathScenarios::inlineSend));
    }

    /** Two RC QPs on one context and CQ, connected with remote atomic access, and their PD. */
    record Pair(CompletionQueue cq, ProtectionDomain pd, QueuePair a, QueuePair b) {
    }

    static Pair pair(ScenarioRun run, QpCapabilities caps) throws Exception {
        return pair(run, caps, Set.of());
    }

    /** {@link #pair(ScenarioRun, QpCapabilities)}, both QPs created for the new post API with {@code sendOps}. */
    static Pair pair(ScenarioRun run, QpCapabilities caps, Set<SendOpcode> sendOps) throws Exception {
        return pair(run, CompletionQueueSpec.of(64), caps, sendOps);
    }

    /** {@link #pair(ScenarioRun, QpCapabilities, Set)} on a CQ of {@code cqSpec}. */
    static Pair pair(ScenarioRun run, CompletionQueueSpec cqSpec, QpCapabilities caps, Set<SendOpcode> sendOps)
            throws Exception {
        Steps steps = run.steps();
        DeviceContext ctx = run.open();
        CompletionQueue cq = steps.make(cqSpec.isExtended() ? "ibv_create_cq_ex" : "ibv_create_cq",
                () -> ctx.createCompletionQueue(cqSpec, "cq"));
        ProtectionDomain pd = steps.make("ibv_alloc_pd", () -> ctx.allocateProtectionDomain("pd"));
        QueuePairSpec spec = sendOps.isEmpty() ? QueuePairSpec.rc(cq, cq, caps)
                : QueuePairSpec.rc(cq, cq, caps).withSendOps(sendOps);
        QueuePair a = steps.make("ibv_create_qp_ex RC a", () -> pd.createQueuePair(spec, "a"));
        QueuePair b = steps.make("ibv_create_qp_ex RC b", () -> pd.createQueuePair(spec, "b"));
        steps.ok("ibv_modify_qp RESET->INIT->RTR->RTS both, remote atomics allowed", () -> Fixtures.connect(a, b,
                Fixtures.selfAddress(ctx), Fixtures.pathMtu(ctx), ATOMIC));
        return new Pair(cq, pd, a, b);
    }

    static void atomics(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        Pair p = pair(run, Fixtures.CAPS);
        MemoryRegion target = steps.make("ibv_reg_mr target, remote atomic", () -> p.pd().allocateMemory(8, ATOMIC,
                "target"));
        MemoryRegion result = steps.make("ibv_reg_mr result", () -> p.pd().allocateMemory(8, LOCAL, "result"));
        MemorySegment word = target.segment();
        word.set(ValueLayout.JAVA_LONG, 0, 40);
        try (SendRequest atomic = p.a().newSendRequest(1); WorkCompletions wc = p.cq().newWorkCompletions(1)) {
            atomic.wrId(1).opcode(SendOpcode.ATOMIC_FETCH_AND_ADD).atomic(target.address(), target.rkey(), 2, 0)
                    .single(result, 0, 8);
            steps.ok("ibv_post_send ATOMIC_FETCH_AND_ADD +2", () -> p.a().postSend(atomic));
            Fixtures.pollFor(p.cq(), wc, 1, WAIT);
            assertThat(wc.status(0)).isEqualTo(WcStatus.SUCCESS);
            assertThat(wc.opcode(0)).isEqualTo(WcOpcode.FETCH_ADD);
            assertThat(result.segment().get(ValueLayout.JAVA_LONG, 0)).as("the value before the add").isEqualTo(40);
            assertThat(word.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(42);

            atomic.wrId(2).opcode(SendOpcode.ATOMIC_CMP_AND_SWP).atomic(target.address(), target.rkey(), 42, 7);
            steps.ok("ibv_post_send ATOMIC_CMP_AND_SWP 42 -> 7", () -> p.a().postSend(atomic));
            Fixtures.pollFor(p.cq(), wc, 1, WAIT);
            assertThat(wc.status(0)).isEqualTo(WcStatus.SUCCESS);
            assertThat(wc.opcode(0)).isEqualTo(WcOpcode.COMP_SWAP);
            assertThat(result.segment().get(ValueLayout.JAVA_LONG, 0)).isEqualTo(42);
            assertThat(word.get(ValueLayout.JAVA_LONG, 0)).as("swapped, as it matched").isEqualTo(7);

            atomic.wrId(3).atomic(target.address(), target.rkey(), 42, 9);
            steps.ok("ibv_post_send ATOMIC_CMP_AND_SWP 42 -> 9 on 7", () -> p.a().postSend(atomic));
            Fixtures.pollFor(p.cq(), wc, 1, WAIT);
            assertThat(result.segment().get(ValueLayout.JAVA_LONG, 0)).isEqualTo(7);
            assertThat(word.get(ValueLayout.JAVA_LONG, 0)).as("unchanged, as it did not match").isEqualTo(7);
        }
    }

    static void misalignedAtomicRefused(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        Pair p = pair(run, Fixtures.CAPS);
        MemoryRegion target = steps.make("ibv_reg_mr target, remote atomic", () -> p.pd().allocateMemory(16, ATOMIC,
                "target"));
        MemoryRegion result = steps.make("ibv_reg_mr result", () -> p.pd().allocateMemory(8, LOCAL, "result"));
        try (SendRequest atomic = p.a().newSendRequest(1)) {
            atomic.opcode(SendOpcode.ATOMIC_FETCH_AND_ADD).atomic(target.address() + 4, target.rkey(), 1, 0)
                    .single(result, 0, 8);
            IllegalArgumentException e = steps.rejected("ibv_post_send ATOMIC_FETCH_AND_ADD at +4",
                    IllegalArgumentException.class, () -> p.a().postSend(atomic));
            assertThat(e).hasMessageContaining("8-byte aligned");
            atomic.atomic(target.address(), target.rkey(), 1, 0).single(result, 0, 4);
            steps.rejected("ibv_post_send ATOMIC_FETCH_AND_ADD into 4 bytes", IllegalArgumentException.class,
                    () -> p.a().postSend(atomic));
        }
    }

    static void inlineSend(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        Pair p = pair(run, new QpCapabilities(16, 16, 1, 1, 64));
        int granted = p.a().capabilities().maxInlineData();
        assertThat(granted).as("max_inline_data granted for 64 asked").isGreaterThanOrEqualTo(64);
        MemoryRegion src = steps.make("ibv_reg_mr src", () -> p.pd().allocateMemory(granted + 1, LOCAL, "src"));
        MemoryRegion dst = steps.make("ibv_reg_mr dst", () -> p.pd().allocateMemory(64, LOCAL, "dst"));
        Fixtures.pattern(src.segment(), 64, 9);
        try (ReceiveRequest recv = p.b().newReceiveRequest(1).wrId(20).single(dst, 0, 64);
                SendRequest send = p.a().newSendRequest(1).wrId(10).flags(SendFlag.SIGNALED | SendFlag.INLINE)
                        .single(src, 0, 64);
                WorkCompletions wc = p.cq().newWorkCompletions(1)) {
            steps.ok("ibv_post_recv", () -> p.b().postReceive(recv));
            steps.ok("ibv_post_send SEND, IBV_SEND_INLINE, 64 bytes", () -> p.a().postSend(send));
            // The bytes were copied at post time: changing the source now does not change what arrives.
            Fixtures.pattern(src.segment(), 64, 1);
            Fixtures.pollFor(p.cq(), wc, 1, WAIT);
            assertThat(wc.status(0)).isEqualTo(WcStatus.SUCCESS);
            Fixtures.pollFor(p.cq(), wc, 1, WAIT);
            assertThat(wc.status(0)).isEqualTo(WcStatus.SUCCESS);
            MemorySegment expected = java.lang.foreign.Arena.ofAuto().allocate(64);
            Fixtures.pattern(expected, 64, 9);
            assertThat(dst.segment().asSlice(0, 64).mismatch(expected)).as("first differing byte").isEqualTo(-1);

            send.single(src, 0, granted + 1);
            IllegalArgumentException e = steps.rejected("ibv_post_send IBV_SEND_INLINE beyond max_inline_data",
                    IllegalArgumentException.class, () -> p.a().postSend(send));
            assertThat(e).hasMessageContaining("max_inline_data");
        }
    }
}
