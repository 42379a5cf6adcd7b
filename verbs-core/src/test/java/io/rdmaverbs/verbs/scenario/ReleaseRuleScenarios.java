package io.rdmaverbs.verbs.scenario;

import java.util.List;

import io.rdmaverbs.verbs.ClosePolicy;
import io.rdmaverbs.verbs.CompletionChannel;
import io.rdmaverbs.verbs.CompletionQueue;
import io.rdmaverbs.verbs.CompletionQueueSpec;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.MemoryRegion;
import io.rdmaverbs.verbs.MulticastAttachment;
import io.rdmaverbs.verbs.ProtectionDomain;
import io.rdmaverbs.verbs.QueuePair;
import io.rdmaverbs.verbs.QueuePairSpec;
import io.rdmaverbs.verbs.SharedReceiveQueue;
import io.rdmaverbs.verbs.SharedReceiveQueueSpec;
import io.rdmaverbs.verbs.StuckReference;
import io.rdmaverbs.verbs.VerbsResource;
import io.rdmaverbs.verbs.attr.Gid;

import static io.rdmaverbs.verbs.scenario.Fixtures.CAPS;
import static io.rdmaverbs.verbs.scenario.Fixtures.LOCAL;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The release rules of the man pages ({@code ibv_dealloc_pd(3)}, {@code ibv_destroy_comp_channel(3)},
 * {@code ibv_destroy_cq(3)}, {@code ibv_destroy_qp(3)}, {@code ibv_destroy_srq(3)}, {@code ibv_close_device(3)}),
 * each observed for real: the graph reports the stuck reference first, the release verb called anyway ({@link ClosePolicy#ATTEMPT}) fails natively with the errno the graph
 * predicted and leaves the resource open, and once the holder is gone the release succeeds.
 */
final class ReleaseRuleScenarios {

    private ReleaseRuleScenarios() {
    }

    static List<Scenario> all() {
        return List.of(
                new Scenario("ibv_dealloc_pd with a live memory region fails with EBUSY, as predicted",
                        ReleaseRuleScenarios::deallocPdWithMemoryRegion),
                new Scenario("ibv_dealloc_pd with a live queue pair fails with EBUSY, as predicted",
                        ReleaseRuleScenarios::deallocPdWithQueuePair),
                new Scenario("ibv_destroy_comp_channel with a CQ on it fails with EBUSY, as predicted",
                        ReleaseRuleScenarios::destroyChannelWithCq),
                new Scenario("ibv_destroy_cq with a queue pair on it fails with EBUSY, as predicted",
                        ReleaseRuleScenarios::destroyCqWithQueuePair),
                new Scenario("ibv_destroy_qp while attached to a multicast group fails with EBUSY, as predicted",
                        ReleaseRuleScenarios::destroyQpAttachedToMulticast),
                new Scenario("ibv_destroy_srq with a queue pair on it fails with EBUSY, as predicted",
                        ReleaseRuleScenarios::destroySrqWithQueuePair),
                new Scenario("ibv_close_device with resources open is refused: it would leak them",
                        ReleaseRuleScenarios::closeDeviceWithResources));
    }

    /** The stuck reference of {@code resource} caused by {@code blocker}, which must exist. */
    static StuckReference predicted(VerbsResource resource, VerbsResource blocker) {
        List<StuckReference> stuck = resource.stuckReferences();
        assertThat(stuck).as("stuck references of %s", resource)
                .anySatisfy(s -> assertThat(s.blocker()).isEqualTo(blocker.ref()));
        return stuck.stream().filter(s -> blocker.ref().equals(s.blocker())).findFirst().orElseThrow();
    }

    static void deallocPdWithMemoryRegion(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        DeviceContext ctx = run.open();
        ProtectionDomain pd = steps.make("ibv_alloc_pd", () -> ctx.allocateProtectionDomain("pd"));
        MemoryRegion mr = steps.make("ibv_reg_mr", () -> pd.allocateMemory(4096, LOCAL, "mr"));
        StuckReference s = predicted(pd, mr);
        assertThat(s.verb()).isEqualTo("ibv_dealloc_pd");
        assertThat(s.errno()).isEqualTo(Errno.EBUSY);
        steps.refused("ibv_dealloc_pd, strict", pd::close);
        steps.fails("ibv_dealloc_pd with the MR registered", Errno.EBUSY, () -> pd.close(ClosePolicy.ATTEMPT));
        assertThat(pd.isOpen()).as("a failed dealloc leaves the PD open").isTrue();
        steps.ok("ibv_dereg_mr", mr::close);
        assertThat(pd.stuckReferences()).isEmpty();
        steps.ok("ibv_dealloc_pd again", pd::close);
        assertThat(pd.isClosed()).isTrue();
    }

    static void deallocPdWithQueuePair(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        DeviceContext ctx = run.open();
        ProtectionDomain pd = steps.make("ibv_alloc_pd", () -> ctx.allocateProtectionDomain("pd"));
        CompletionQueue cq = steps.make("ibv_create_cq", () -> ctx.createCompletionQueue(CompletionQueueSpec.of(16)));
        QueuePair qp = steps.make("ibv_create_qp_ex RC", () -> pd.createQueuePair(QueuePairSpec.rc(cq, cq, CAPS)));
        predicted(pd, qp);
        steps.fails("ibv_dealloc_pd with the QP alive", Errno.EBUSY, () -> pd.close(ClosePolicy.ATTEMPT));
        assertThat(pd.isOpen()).isTrue();
        steps.ok("ibv_destroy_qp", qp::close);
        steps.ok("ibv_dealloc_pd again", pd::close);
        steps.ok("ibv_destroy_cq", cq::close);
    }

    static void destroyChannelWithCq(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        DeviceContext ctx = run.open();
        CompletionChannel channel = steps.make("ibv_create_comp_channel", () -> ctx.createCompletionChannel("ch"));
        CompletionQueue cq = steps.make("ibv_create_cq on the channel",
                () -> ctx.createCompletionQueue(CompletionQueueSpec.of(16).withChannel(channel), "cq"));
        StuckReference s = predicted(channel, cq);
        assertThat(s.verb()).isEqualTo("ibv_destroy_comp_channel");
        steps.refused("ibv_destroy_comp_channel, strict", channel::close);
        steps.fails("ibv_destroy_comp_channel with the CQ on it", Errno.EBUSY,
                () -> channel.close(ClosePolicy.ATTEMPT));
        assertThat(channel.isOpen()).isTrue();
        steps.ok("ibv_destroy_cq", cq::close);
        steps.ok("ibv_destroy_comp_channel again", channel::close);
    }

    static void destroyCqWithQueuePair(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        DeviceContext ctx = run.open();
        ProtectionDomain pd = ctx.allocateProtectionDomain("pd");
        CompletionQueue sendCq = steps.make("ibv_create_cq send",
                () -> ctx.createCompletionQueue(CompletionQueueSpec.of(16), "scq"));
        CompletionQueue recvCq = steps.make("ibv_create_cq recv",
                () -> ctx.createCompletionQueue(CompletionQueueSpec.of(16), "rcq"));
        QueuePair qp = steps.make("ibv_create_qp_ex RC",
                () -> pd.createQueuePair(QueuePairSpec.rc(sendCq, recvCq, CAPS)));
        predicted(sendCq, qp);
        predicted(recvCq, qp);
        steps.fails("ibv_destroy_cq (send CQ) with the QP on it", Errno.EBUSY, () -> sendCq.close(ClosePolicy.ATTEMPT));
        steps.fails("ibv_destroy_cq (recv CQ) with the QP on it", Errno.EBUSY, () -> recvCq.close(ClosePolicy.ATTEMPT));
        assertThat(sendCq.isOpen()).isTrue();
        steps.ok("ibv_destroy_qp", qp::close);
        steps.ok("ibv_destroy_cq send again", sendCq::close);
        steps.ok("ibv_destroy_cq recv again", recvCq::close);
        steps.ok("ibv_dealloc_pd", pd::close);
    }

    static void destroyQpAttachedToMulticast(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        DeviceContext ctx = run.open();
        ProtectionDomain pd = ctx.allocateProtectionDomain("pd");
        CompletionQueue cq = ctx.createCompletionQueue(CompletionQueueSpec.of(16));
        QueuePair ud = steps.make("ibv_create_qp_ex UD", () -> pd.createQueuePair(QueuePairSpec.ud(cq, cq, CAPS)));
        Gid group = Gid.parse("ff0e:0000:0000:0000:0000:0000:0000:0101");
        MulticastAttachment attachment = steps.make("ibv_attach_mcast", () -> ud.attachMulticast(group, 0, "group"));
        StuckReference s = predicted(ud, attachment);
        assertThat(s.cause()).isEqualTo(StuckReference.Cause.MULTICAST_ATTACHMENT);
        steps.fails("ibv_destroy_qp while attached", Errno.EBUSY, () -> ud.close(ClosePolicy.ATTEMPT));
        assertThat(ud.isOpen()).isTrue();
        steps.ok("ibv_detach_mcast", attachment::close);
        steps.ok("ibv_destroy_qp again", ud::close);
        steps.ok("ibv_destroy_cq", cq::close);
        steps.ok("ibv_dealloc_pd", pd::close);
    }

    static void destroySrqWithQueuePair(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        DeviceContext ctx = run.open();
        ProtectionDomain pd = ctx.allocateProtectionDomain("pd");
        CompletionQueue cq = ctx.createCompletionQueue(CompletionQueueSpec.of(16));
        SharedReceiveQueue srq = steps.make("ibv_create_srq",
                () -> pd.createSharedReceiveQueue(SharedReceiveQueueSpec.basic(16), "srq"));
        QueuePair qp = steps.make("ibv_create_qp_ex RC with SRQ",
                () -> pd.createQueuePair(QueuePairSpec.rc(cq, cq, CAPS).withSrq(srq)));
        predicted(srq, qp);
        predicted(pd, srq);
        steps.fails("ibv_destroy_srq with the QP on it", Errno.EBUSY, () -> srq.close(ClosePolicy.ATTEMPT));
        steps.fails("ibv_dealloc_pd with the SRQ and QP alive", Errno.EBUSY, () -> pd.close(ClosePolicy.ATTEMPT));
        steps.ok("ibv_destroy_qp", qp::close);
        steps.ok("ibv_destroy_srq again", srq::close);
        steps.ok("ibv_destroy_cq", cq::close);
        steps.ok("ibv_dealloc_pd", pd::close);
    }

    static void closeDeviceWithResources(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        DeviceContext ctx = run.open();
        ProtectionDomain pd = steps.make("ibv_alloc_pd", () -> ctx.allocateProtectionDomain("pd"));
        StuckReference s = predicted(ctx, pd);
        assertThat(s.consequence()).isEqualTo(StuckReference.Consequence.LEAKS);
        steps.refused("ibv_close_device, strict", ctx::close);
        // ATTEMPT still refuses a leak: only predicted errno failures are handed to the kernel.
        steps.refused("ibv_close_device, attempt", () -> ctx.close(ClosePolicy.ATTEMPT));
        assertThat(ctx.isOpen()).isTrue();
        steps.ok("ibv_dealloc_pd", pd::close);
        steps.ok("ibv_close_device again", ctx::close);
    }
}
