package io.rdmaverbs.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;

import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.Gid;
import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.provider.simulated.DeviceProfile;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;
import io.rdmaverbs.verbs.scenario.Fixtures;

import org.junit.jupiter.api.Test;

/**
 * Everything the graph reports about a mixed graph, in full and in order: each resource's ref, name,
 * parents, dependents and details, every stuck reference, the close plans under each policy, and the
 * report of the cascade that ends it. The expected text is {@value #GOLDEN}, written from the graph's
 * code before it was made to scale; what the health indicator, the endpoint and a shutdown show depends
 * on this order and content, so a faster computation must produce the very same text.
 *
 * <p>A deliberate change of a report regenerates the file: run this test with
 * {@code -Dgraph.reports.write=true}, then review the diff of {@value #GOLDEN}.
 */
class GraphReportsTest {

    private static final String GOLDEN = "graph-reports.txt";
    private static final Path SOURCE = Path.of("src/test/resources/io/rdmaverbs/verbs", GOLDEN);

    @Test
    void aMixedGraphReportsExactlyWhatItReportedBeforeItWasMadeToScale() throws IOException {
        String actual;
        try (Arena arena = Arena.ofShared()) {
            actual = reportsOfAMixedGraph(arena);
        }
        if (Boolean.getBoolean("graph.reports.write")) {
            Files.writeString(SOURCE, actual);
            return;
        }
        assertThat(actual).isEqualTo(golden());
    }

    /**
     * The order the graph reports in, on random graphs: dependents oldest first, the stuck references of
     * each resource in that order, and a plan's steps a post-order walk of them from the oldest root;
     * checked against a model built from {@link VerbsResource#parents()} alone.
     */
    @Test
    void dependentsStuckReferencesAndPlansFollowIdOrderOnRandomGraphs() {
        for (long seed = 1; seed <= 20; seed++) {
            Random random = new Random(seed);
            Verbs verbs = Verbs.using(SimulatedProvider.of(DeviceProfile.rxe("rxe0")));
            try (Arena arena = Arena.ofShared()) {
                randomGraph(verbs, random, arena);
                List<VerbsResource> live = verbs.resources();
                for (VerbsResource r : live) {
                    assertThat(r.dependents()).as("dependents of %s, seed %d", r, seed)
                            .containsExactlyElementsOf(modelDependents(live, r));
                }
                List<ResourceRef> blockers = verbs.stuckReferences().stream()
                        .filter(s -> s.cause() == StuckReference.Cause.DEPENDENT_RESOURCE)
                        .map(StuckReference::blocker).toList();
                List<ResourceRef> expectedBlockers = new ArrayList<>();
                for (VerbsResource r : live) {
                    modelDependents(live, r).forEach(d -> expectedBlockers.add(d.ref()));
                }
                assertThat(blockers).as("stuck references, seed %d", seed).containsExactlyElementsOf(expectedBlockers);
                for (ClosePolicy policy : ClosePolicy.values()) {
                    assertThat(verbs.planClose(policy).steps()).extracting(ClosePlan.Step::resource)
                            .as("%s plan, seed %d", policy, seed)
                            .containsExactlyElementsOf(modelOrder(live, live, live).stream().map(VerbsResource::ref).toList());
                }
                List<VerbsResource> subset = live.stream().filter(r -> random.nextInt(3) == 0).toList();
                assertThat(verbs.planClose(subset, ClosePolicy.STRICT).steps()).extracting(ClosePlan.Step::resource)
                        .as("strict plan of a subset, seed %d", seed)
                        .containsExactlyElementsOf(modelOrder(live, subset, subset).stream().map(VerbsResource::ref).toList());
                CloseReport report = verbs.close(ClosePolicy.CASCADE);
                assertThat(report.left()).isEmpty();
                assertThat(report.closed()).containsExactlyElementsOf(
                        modelOrder(live, live, live).stream().map(VerbsResource::ref).toList());
            }
        }
    }

    private static List<VerbsResource> modelDependents(List<VerbsResource> live, VerbsResource r) {
        return live.stream().filter(d -> d.parents().contains(r)).sorted(Comparator.comparingLong(VerbsResource::id))
                .toList();
    }

    /** Post-order from the oldest root, each resource's dependents among {@code members} newest first. */
    private static List<VerbsResource> modelOrder(List<VerbsResource> live, List<VerbsResource> roots,
            List<VerbsResource> members) {
        List<VerbsResource> out = new ArrayList<>();
        roots.stream().sorted(Comparator.comparingLong(VerbsResource::id)).forEach(r -> modelVisit(live, r, members, out));
        return out;
    }

    private static void modelVisit(List<VerbsResource> live, VerbsResource r, List<VerbsResource> members,
            List<VerbsResource> out) {
        if (out.contains(r)) {
            return;
        }
        modelDependents(live, r).reversed().stream().filter(members::contains)
                .forEach(d -> modelVisit(live, d, members, out));
        out.add(r);
    }

    private static void randomGraph(Verbs verbs, Random random, Arena arena) {
        DeviceContext ctx = verbs.openDevice("rxe0");
        for (int i = 0; i < 60; i++) {
            ProtectionDomain pd = pick(verbs, ProtectionDomain.class, random);
            CompletionQueue cq = pick(verbs, CompletionQueue.class, random);
            switch (random.nextInt(6)) {
                case 0 -> ctx.allocateProtectionDomain();
                case 1 -> ctx.createCompletionChannel();
                case 2 -> {
                    CompletionChannel channel = pick(verbs, CompletionChannel.class, random);
                    CompletionQueueSpec spec = CompletionQueueSpec.of(8);
                    ctx.createCompletionQueue(channel != null && random.nextBoolean() ? spec.withChannel(channel) : spec);
                }
                case 3 -> {
                    CompletionQueue other = pick(verbs, CompletionQueue.class, random);
                    if (pd != null && cq != null) {
                        pd.createQueuePair(QueuePairSpec.rc(cq, other, Fixtures.CAPS));
                    }
                }
                case 4 -> {
                    if (pd != null) {
                        pd.registerMemory(arena.allocate(64), Fixtures.LOCAL);
                    }
                }
                default -> {
                    // Closing some makes the live set, and each parent's dependents, sparse in ids.
                    List<VerbsResource> leaves = verbs.resources().stream().filter(r -> r.dependents().isEmpty()
                            && !(r instanceof DeviceContext)).toList();
                    if (!leaves.isEmpty()) {
                        leaves.get(random.nextInt(leaves.size())).close();
                    }
                }
            }
        }
    }

    private static <R extends VerbsResource> R pick(Verbs verbs, Class<R> kind, Random random) {
        List<R> open = verbs.resources().stream().filter(kind::isInstance).map(kind::cast).toList();
        return open.isEmpty() ? null : open.get(random.nextInt(open.size()));
    }

    /** Builds the graph, renders its reports, renames two resources, renders again, and cascades. */
    private static String reportsOfAMixedGraph(Arena arena) {
        Verbs verbs = Verbs.using(SimulatedProvider.of(DeviceProfile.rxe("rxe0"), DeviceProfile.mlx5("mlx5_0")));
        StringBuilder out = new StringBuilder();
        DeviceContext ctx = verbs.openDevice("rxe0");
        CompletionChannel channel = ctx.createCompletionChannel("channel");
        CompletionQueue cq = ctx.createCompletionQueue(CompletionQueueSpec.of(64).withChannel(channel), "cq");
        CompletionQueue plainCq = ctx.createCompletionQueue(CompletionQueueSpec.of(16));
        ProtectionDomain pd = ctx.allocateProtectionDomain("pd");
        ProtectionDomain other = ctx.allocateProtectionDomain();
        QueuePair a = pd.createQueuePair(QueuePairSpec.rc(cq, cq, Fixtures.CAPS), "a");
        QueuePair b = pd.createQueuePair(QueuePairSpec.rc(cq, plainCq, Fixtures.CAPS));
        Fixtures.connect(a, b, Fixtures.selfAddress(ctx), Fixtures.pathMtu(ctx));
        MemoryRegion source = pd.allocateMemory(64, Fixtures.LOCAL, "source");
        MemoryRegion target = pd.allocateMemory(64, Fixtures.REMOTE);
        SharedReceiveQueue srq = other.createSharedReceiveQueue(SharedReceiveQueueSpec.basic(16), "srq");
        QueuePair onSrq = other.createQueuePair(QueuePairSpec.rc(plainCq, plainCq, Fixtures.CAPS).withSrq(srq));
        QueuePair ud = other.createQueuePair(QueuePairSpec.ud(plainCq, plainCq, Fixtures.CAPS), "ud");
        ud.attachMulticast(Gid.parse("ff0e:0000:0000:0000:0000:0000:0000:0101"), 0, "group");
        other.createAddressHandle(Fixtures.selfAddress(ctx));
        MemorySegment buffer = arena.allocate(4096);
        MemoryRegion registered = other.registerMemory(buffer, EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ));
        // A second device, with what rxe lacks: an XRC domain, its receive QP and an XRC SRQ.
        DeviceContext hca = verbs.openDevice("mlx5_0", "hca");
        XrcDomain xrcd = hca.openXrcDomain(XrcDomainSpec.privateDomain(), "xrcd");
        xrcd.createReceiveQueuePair("xrc-target");
        ProtectionDomain hcaPd = hca.allocateProtectionDomain();
        CompletionQueue hcaCq = hca.createCompletionQueue(CompletionQueueSpec.of(16), "hca-cq");
        hcaPd.createSharedReceiveQueue(SharedReceiveQueueSpec.xrc(xrcd, hcaCq, 16));
        // A created and closed resource leaves a gap in the ids.
        pd.allocateMemory(64, Fixtures.LOCAL, "gone").close();
        takeOneEvent(a, cq, channel, source, target);
        Lease lease = registered.lease("reader");
        Lease second = pd.lease("writer");

        out.append("== live graph\n");
        render(verbs, out);
        onSrq.name("renamed-qp");
        other.name("renamed-pd");
        out.append("== after renaming ").append(onSrq.id()).append(" and ").append(other.id()).append('\n');
        render(verbs, out);

        second.close();
        CloseReport report = verbs.close(ClosePolicy.CASCADE);
        out.append("== cascade close\n");
        report.closed().forEach(r -> out.append("closed ").append(ref(r)).append('\n'));
        report.left().forEach(l -> out.append("left ").append(ref(l.resource())).append(": ").append(l.reason()).append('\n'));
        out.append("lease revoked: ").append(lease.isRevoked()).append('\n');
        return mask(out.toString());
    }

    private static void render(Verbs verbs, StringBuilder out) {
        out.append("-- resources\n");
        for (VerbsResource r : verbs.resources()) {
            out.append(ref(r.ref())).append(" | ").append(r).append(" | name ").append(r.name()).append('\n');
            out.append("  parents ").append(names(r.parents())).append('\n');
            out.append("  dependents ").append(names(r.dependents())).append('\n');
            out.append("  leases ").append(r.leases().stream().map(Lease::holder).toList()).append('\n');
            out.append("  details ").append(details(r.details())).append('\n');
            List<StuckReference> own = r.stuckReferences();
            out.append("  stuck ").append(own.size()).append('\n');
            assertThat(r.stuckReferenceCount()).as("what %s counts without wording", r).isEqualTo(own.size());
            assertThat(r.dependentCount()).as("dependents of %s", r).isEqualTo(r.dependents().size());
        }
        out.append("-- stuck references\n");
        verbs.stuckReferences().forEach(s -> out.append(stuck(s)).append('\n'));
        for (ClosePolicy policy : ClosePolicy.values()) {
            plan("plan " + policy + " of everything", verbs.planClose(policy), out);
        }
        List<VerbsResource> some = verbs.resources().stream().filter(r -> r.kind() == ResourceKind.PROTECTION_DOMAIN
                || r.kind() == ResourceKind.MEMORY_REGION).toList();
        for (ClosePolicy policy : ClosePolicy.values()) {
            plan("plan " + policy + " of the PDs and MRs", verbs.planClose(some, policy), out);
        }
        VerbsResource pd = some.getFirst();
        for (ClosePolicy policy : ClosePolicy.values()) {
            plan("plan " + policy + " of " + pd.name(), verbs.planClose(List.of(pd), policy), out);
        }
    }

    private static void plan(String title, ClosePlan plan, StringBuilder out) {
        out.append("-- ").append(title).append(": blocked ").append(plan.isBlocked()).append('\n');
        for (ClosePlan.Step s : plan.steps()) {
            out.append("step ").append(ref(s.resource())).append(" ").append(s.verb()).append(" ")
                    .append(s.preparations()).append('\n');
        }
        plan.blockers().forEach(s -> out.append("blocker ").append(stuck(s)).append('\n'));
        out.append(plan.describe()).append('\n');
    }

    private static String stuck(StuckReference s) {
        return ref(s.resource()) + " " + s.verb() + " " + s.consequence() + " " + s.errno() + " " + s.cause() + " "
                + (s.blocker() == null ? "-" : ref(s.blocker())) + " "
                + (s.lease() == null ? "-" : s.lease().holder()) + " : " + s.message();
    }

    private static String ref(ResourceRef r) {
        return "#" + r.id() + " " + r.kind() + " " + r.name() + " on " + r.device() + " by " + r.releaseVerb();
    }

    private static String names(List<VerbsResource> resources) {
        return resources.stream().map(r -> r.id() + ":" + r.name()).collect(Collectors.joining(", ", "[", "]"));
    }

    private static String details(Map<String, Object> details) {
        return details.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining(", ", "{", "}"));
    }

    /** Times, threads and line numbers are not the graph's to pin. */
    private static String mask(String text) {
        return text.replaceAll("\\d{4}-\\d\\d-\\d\\dT[0-9:.]+Z", "<instant>")
                .replace("(thread " + Thread.currentThread().getName() + ")", "(thread <test>)")
                .replaceAll("\\(GraphReportsTest\\.java:\\d+\\)", "(GraphReportsTest.java)")
                .replaceAll("PT[0-9.]+S", "<duration>");
    }

    /** An RDMA write from {@code a} whose completion raises an event on {@code channel}, taken and left unacknowledged. */
    private static void takeOneEvent(QueuePair a, CompletionQueue cq, CompletionChannel channel, MemoryRegion source,
            MemoryRegion target) {
        cq.requestNotification(false);
        try (SendRequest write = a.newSendRequest(1).wrId(1).opcode(SendOpcode.RDMA_WRITE).single(source, 0, 64)
                .remote(target.address(), target.rkey())) {
            a.postSend(write);
            assertThat(channel.awaitEvent(Duration.ofSeconds(5))).contains(cq);
        }
    }

    private static String golden() throws IOException {
        try (InputStream in = GraphReportsTest.class.getResourceAsStream(GOLDEN)) {
            assertThat(in).as("%s next to this test (write it with -Dgraph.reports.write=true)", GOLDEN).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
