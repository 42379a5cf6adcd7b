package io.rdmaverbs.verbs.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import io.rdmaverbs.verbs.ClosePolicy;
import io.rdmaverbs.verbs.CloseReport;
import io.rdmaverbs.verbs.CmEventChannel;
import io.rdmaverbs.verbs.CmId;
import io.rdmaverbs.verbs.CompletionChannel;
import io.rdmaverbs.verbs.CompletionQueue;
import io.rdmaverbs.verbs.CompletionQueueSpec;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.ProtectionDomain;
import io.rdmaverbs.verbs.QueuePair;
import io.rdmaverbs.verbs.QueuePairSpec;
import io.rdmaverbs.verbs.RemoteRegion;
import io.rdmaverbs.verbs.ResourceKind;
import io.rdmaverbs.verbs.ResourceRef;
import io.rdmaverbs.verbs.SharedReceiveQueue;
import io.rdmaverbs.verbs.SharedReceiveQueueSpec;
import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.VerbsResource;
import io.rdmaverbs.verbs.XrcDomain;
import io.rdmaverbs.verbs.XrcDomainSpec;
import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.Gid;
import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.RemoteAccess;
import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.attr.CmPortSpace;
import io.rdmaverbs.verbs.provider.simulated.DeviceProfile;
import io.rdmaverbs.verbs.provider.simulated.FaultPlan;
import io.rdmaverbs.verbs.provider.simulated.InjectedFault;
import io.rdmaverbs.verbs.provider.simulated.ResourceCounts;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Teardown of a graph holding every kind of resource, under each close policy and {@code Verbs.close()},
 * with the release at each position failing in turn (EBUSY, the kernel's answer for a release of
 * something in use). The report must name what failed, leave open only that resource and what needs it
 * gone first (its parents, transitively), keep the failed one open, and a retry must release it all.
 */
class TeardownFaultSweepTest {

    private static final QpCapabilities CAPS = new QpCapabilities(16, 16, 1, 1, 0);
    private static final Gid GROUP = Gid.parse("ff0e:0000:0000:0000:0000:0000:0000:0001");

    /** A teardown: the report, or for {@code Verbs.close()} none. */
    private record TeardownUnderTest(String name, Function<Verbs, CloseReport> close) {
    }

    @TestFactory
    Stream<DynamicTest> aReleaseFailingAtEachPositionLeavesOnlyItAndWhatNeedsItOpen() {
        return Stream.of(
                new TeardownUnderTest("STRICT", v -> v.close(ClosePolicy.STRICT)),
                new TeardownUnderTest("CASCADE", v -> v.close(ClosePolicy.CASCADE)),
                new TeardownUnderTest("ATTEMPT", v -> v.close(ClosePolicy.ATTEMPT)),
                new TeardownUnderTest("Verbs.close()", v -> {
                    v.close();
                    return null;
                })).map(teardown -> DynamicTest.dynamicTest(teardown.name(), () -> sweep(teardown)));
    }

    private void sweep(TeardownUnderTest teardown) {
        SimulatedProvider clean = SimulatedProvider.of(DeviceProfile.mlx5("mlx5_0"));
        Verbs cleanGraph = everyKind(clean);
        assertThat(cleanGraph.resources()).extracting(VerbsResource::kind).containsAll(EnumSet.allOf(ResourceKind.class));
        clean.faults().reset();
        teardown.close().apply(cleanGraph);
        long releases = clean.faults().calls();
        assertThat(cleanGraph.resources()).isEmpty();
        // librdmacm's own context stays open: the graph adopted it and never closes it.
        int cmContexts = clean.resourceCounts("mlx5_0").contexts();

        int injected = 0;
        for (int k = 1; k <= releases; k++) {
            SimulatedProvider sim = SimulatedProvider.of(DeviceProfile.mlx5("mlx5_0"));
            Verbs verbs = everyKind(sim);
            FaultPlan faults = sim.faults();
            faults.reset();
            faults.failAnyCall(k, FaultPlan::typicalErrno);

            CloseReport report = teardown.close().apply(verbs);

            InjectedFault fault = faults.injected().getFirst();
            String at = teardown.name() + " with " + fault;
            injected++;
            Set<ResourceRef> stillOpen = verbs.resources().stream().map(VerbsResource::ref).collect(Collectors.toSet());
            VerbsResource failed = verbs.resources().stream().filter(r -> r.kind().releaseVerb().equals(fault.verb()))
                    .filter(r -> r.dependents().isEmpty()).findFirst().orElseThrow(() -> new AssertionError(at
                            + ": no open resource whose release is " + fault.verb() + ": " + stillOpen));
            assertThat(failed.isOpen()).as(at).isTrue();
            assertThat(stillOpen).as(at + ": open after the teardown: the failed resource and its parents")
                    .isEqualTo(withAncestors(failed));
            if (report != null) {
                assertThat(report.left()).as(at).extracting(CloseReport.Leftover::resource)
                        .containsExactlyInAnyOrderElementsOf(stillOpen);
                assertThat(report.left()).as(at + ": the report names what failed, with the verb and errno")
                        .filteredOn(left -> left.resource().equals(failed.ref())).singleElement()
                        .satisfies(left -> {
                            assertThat(left.failure().verb()).isEqualTo(fault.verb());
                            assertThat(left.failure().errno()).isEqualTo(Errno.EBUSY);
                        });
            }

            CloseReport retry = teardown.close().apply(verbs);
            if (retry != null) {
                assertThat(retry.left()).as(at + ": the retry").isEmpty();
            }
            assertThat(verbs.resources()).as(at + ": the graph after the retry").isEmpty();
            ResourceCounts counts = sim.resourceCounts("mlx5_0");
            assertThat(counts.contexts() - cmContexts + counts.objects()).as(at + ": %s", counts).isZero();
            assertThat(sim.leakedObjects()).as(at).isEmpty();
        }
        System.out.printf("fault sweep teardown %s: %d injection points, %d runs%n", teardown.name(), injected,
                releases + 1);
    }

    /** The resource and everything it holds as a parent, transitively: what cannot go before it does. */
    private static Set<ResourceRef> withAncestors(VerbsResource resource) {
        Set<ResourceRef> out = new HashSet<>();
        Deque<VerbsResource> todo = new ArrayDeque<>(List.of(resource));
        while (!todo.isEmpty()) {
            VerbsResource r = todo.pop();
            if (out.add(r.ref())) {
                todo.addAll(r.parents());
            }
        }
        return out;
    }

    /** The path of a remote region nothing posts through: the sweep only releases it. */
    private static final RemoteRegion.Path UNUSED_PATH = new RemoteRegion.Path() {
        @Override
        public CompletableFuture<Void> read(RemoteRegion region, long remoteAddress, MemorySegment destination) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Void> write(RemoteRegion region, long remoteAddress, MemorySegment source) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Long> atomic(RemoteRegion region, SendOpcode opcode, long remoteAddress,
                long compareAdd, long swap) {
            throw new UnsupportedOperationException();
        }
    };

    /** One graph with a resource of every kind, on an XRC-capable device. */
    private static Verbs everyKind(SimulatedProvider sim) {
        Verbs verbs = Verbs.using(sim);
        DeviceContext ctx = verbs.openDevice("mlx5_0");
        ProtectionDomain pd = ctx.allocateProtectionDomain("pd");
        XrcDomain xrcd = ctx.openXrcDomain(XrcDomainSpec.privateDomain(), "xrcd");
        CompletionChannel channel = ctx.createCompletionChannel("channel");
        CompletionQueue cq = ctx.createCompletionQueue(CompletionQueueSpec.of(16).withChannel(channel), "cq");
        SharedReceiveQueue srq = pd.createSharedReceiveQueue(SharedReceiveQueueSpec.basic(16), "srq");
        QueuePair rc = pd.createQueuePair(QueuePairSpec.rc(cq, cq, CAPS).withSrq(srq), "rc");
        rc.remoteRegion(new RemoteRegion.Target("a peer", 1, 0x10000, 4096, 0x1234, Set.of(RemoteAccess.READ)),
                UNUSED_PATH, "remote-region");
        QueuePair ud = pd.createQueuePair(QueuePairSpec.ud(cq, cq, CAPS), "ud");
        ud.attachMulticast(GROUP, 0);
        QueuePair xrcReceive = xrcd.createReceiveQueuePair("xrc-recv");
        xrcd.openReceiveQueuePair(xrcReceive.qpNum(), "registration");
        pd.allocateMemory(4096, EnumSet.of(AccessFlag.LOCAL_WRITE), "mr");
        pd.createAddressHandle(Fixtures.selfAddress(ctx), "ah");
        CmEventChannel cmChannel = verbs.createCmEventChannel("cm-channel");
        CmId cmId = cmChannel.createId(CmPortSpace.TCP, "cm-id");
        cmId.resolveAddress(null, new InetSocketAddress(sim.addresses("mlx5_0").getFirst(), 7471), Duration.ofSeconds(1));
        cmChannel.awaitEvent(Duration.ofSeconds(1)).orElseThrow(); // ADDR_RESOLVED, held: a CM_EVENT
        return verbs;
    }
}
