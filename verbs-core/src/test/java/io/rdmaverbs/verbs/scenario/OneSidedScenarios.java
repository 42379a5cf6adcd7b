package io.rdmaverbs.verbs.scenario;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.rdmaverbs.verbs.ClosePlan;
import io.rdmaverbs.verbs.ClosePolicy;
import io.rdmaverbs.verbs.CloseRefusedException;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.MemoryRegion;
import io.rdmaverbs.verbs.RemoteRegion;
import io.rdmaverbs.verbs.ResourceClosedException;
import io.rdmaverbs.verbs.ResourceKind;
import io.rdmaverbs.verbs.StuckReference;
import io.rdmaverbs.verbs.VerbsResource;
import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.RemoteAccess;
import io.rdmaverbs.verbs.connection.ConnectSpec;
import io.rdmaverbs.verbs.connection.Connection;
import io.rdmaverbs.verbs.connection.ConnectionListener;
import io.rdmaverbs.verbs.connection.ConnectionSpec;
import io.rdmaverbs.verbs.connection.Connections;
import io.rdmaverbs.verbs.connection.ListenSpec;
import io.rdmaverbs.verbs.connection.Message;
import io.rdmaverbs.verbs.connection.RemoteKey;
import io.rdmaverbs.verbs.connection.Session;
import io.rdmaverbs.verbs.connection.SessionSpec;
import io.rdmaverbs.verbs.error.Errno;

import static io.rdmaverbs.verbs.scenario.CmScenarios.EVENT_WAIT;
import static io.rdmaverbs.verbs.scenario.CmScenarios.crc;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * One-sided RDMA through the sessions of two {@link Connections} on the target, rdma_cm loopback as in
 * {@link ConnectionScenarios}: the server exports memory, the key travels to the client in a message, the
 * client reads, writes and runs atomics through its {@link RemoteRegion}; and the graph's remote references
 * (an export holds its region, a revocation closes the peer's handles) as the kernel lets them happen. The
 * checksums are of the bytes in the other side's memory, so an operation that went elsewhere fails them.
 */
final class OneSidedScenarios {

    private static final Set<AccessFlag> EXPORTABLE = EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ,
            AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_ATOMIC);
    private static final Set<RemoteAccess> ALL = EnumSet.allOf(RemoteAccess.class);

    private OneSidedScenarios() {
    }

    static List<Scenario> all() {
        return List.of(
                new Scenario("One-sided: RDMA READ, WRITE, compare-and-swap and fetch-and-add through a remote region, "
                        + "checksummed in the other side's memory", OneSidedScenarios::readWriteAtomics),
                new Scenario("One-sided: outside the export, misaligned or without the access, an operation is refused "
                        + "before posting and the connection stays usable", OneSidedScenarios::misuseRefusedLocally),
                new Scenario("One-sided: a revocation racing the peer's reads: each read completes with the region's "
                        + "bytes or is refused locally, none meets a deregistered rkey", OneSidedScenarios::revocationRace),
                new Scenario("One-sided: the owner's cascade close waits until the peer's reads in flight on the "
                        + "revoked export completed", OneSidedScenarios::revocationWaitsForReadsInFlight),
                new Scenario("One-sided: closing an exported region: STRICT and ATTEMPT are refused naming the peer, the "
                        + "rkey and since when; CASCADE revokes, then deregisters", OneSidedScenarios::closeWhileExported),
                new Scenario("One-sided: the peer's death with regions exported both ways: the handles close, the regions "
                        + "close strictly, nothing is left", OneSidedScenarios::peerDeath),
                new Scenario("One-sided: handshake read/atomic depths beyond the device's limits are refused naming the "
                        + "value, the limit and the device", OneSidedScenarios::depthsBeyondTheDevice));
    }

    // ---- the scenarios ------------------------------------------------------------------------------

    static void readWriteAtomics(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        try (Connections server = Connections.on(run.verbs(), "server");
                Connections client = Connections.on(run.verbs(), "client")) {
            Pair p = Pair.connect(run, steps, server, client);
            int size = (3 << 20) + 17; // more than one READ chunk of 1 MiB
            MemoryRegion exported = steps.make("register the server's region",
                    () -> p.server().allocateMemory(size, EXPORTABLE));
            fill(exported.segment(), 11);
            RemoteRegion remote = p.handOver(steps, exported, 0, size, ALL);
            assertThat(remote.length()).isEqualTo(size);
            assertThat(remote.kind()).isEqualTo(ResourceKind.REMOTE_REGION);
            assertThat(remote.parents()).containsExactly(p.client().queuePair());

            MemoryRegion local = p.client().allocateMemory(size, EnumSet.of(AccessFlag.LOCAL_WRITE));
            steps.ok("RDMA READ of the whole export into a registered region", () -> remote.read(0, local.segment())
                    .get(EVENT_WAIT.toSeconds(), TimeUnit.SECONDS));
            steps.observed("the bytes read", same(local.segment(), 0, exported.segment(), 0, size));
            MemorySegment heap = MemorySegment.ofArray(new byte[70_000]);
            steps.ok("RDMA READ into a heap segment (through a bounce buffer)", () -> remote.read(100_000, heap)
                    .get(EVENT_WAIT.toSeconds(), TimeUnit.SECONDS));
            steps.observed("the bytes read", same(heap, 0, exported.segment(), 100_000, 70_000));

            byte[] written = new byte[5000];
            new Random(12).nextBytes(written);
            steps.ok("RDMA WRITE from a heap array", () -> remote.write(8192, MemorySegment.ofArray(written))
                    .get(EVENT_WAIT.toSeconds(), TimeUnit.SECONDS));
            steps.observed("the bytes in the server's region", same(MemorySegment.ofArray(written), 0,
                    exported.segment(), 8192, written.length));
            fill(local.segment().asSlice(0, 1 << 20), 13);
            steps.ok("RDMA WRITE of 1 MiB from a registered region", () -> remote.write(size - (1 << 20),
                    local.segment().asSlice(0, 1 << 20)).get(EVENT_WAIT.toSeconds(), TimeUnit.SECONDS));
            steps.observed("the bytes in the server's region", same(local.segment(), 0, exported.segment(),
                    size - (1 << 20), 1 << 20));

            MemorySegment word = exported.segment().asSlice(64, 8);
            word.set(ValueLayout.JAVA_LONG, 0, 41);
            long old = steps.make("compare-and-swap that does not match", () -> remote.compareAndSwap(64, 7, 99)
                    .get(EVENT_WAIT.toSeconds(), TimeUnit.SECONDS));
            steps.observed("its old value, and the word", old + ", " + word.get(ValueLayout.JAVA_LONG, 0));
            old = steps.make("compare-and-swap that matches", () -> remote.compareAndSwap(64, 41, 42)
                    .get(EVENT_WAIT.toSeconds(), TimeUnit.SECONDS));
            steps.observed("its old value, and the word", old + ", " + word.get(ValueLayout.JAVA_LONG, 0));
            old = steps.make("fetch-and-add 1000", () -> remote.fetchAndAdd(64, 1000)
                    .get(EVENT_WAIT.toSeconds(), TimeUnit.SECONDS));
            steps.observed("its old value, and the word", old + ", " + word.get(ValueLayout.JAVA_LONG, 0));

            assertThat(p.clientSession().isOpen()).isTrue();
            p.close(steps);
        }
    }

    static void misuseRefusedLocally(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        try (Connections server = Connections.on(run.verbs(), "server");
                Connections client = Connections.on(run.verbs(), "client")) {
            Pair p = Pair.connect(run, steps, server, client);
            MemoryRegion exported = p.server().allocateMemory(4096, EXPORTABLE);
            fill(exported.segment(), 21);
            RemoteRegion readOnly = p.handOver(steps, exported, 1024, 2048, EnumSet.of(RemoteAccess.READ));
            MemorySegment buffer = Arena.ofAuto().allocate(4096, 8);

            steps.rejected("RDMA READ past the end of the export", IllegalArgumentException.class,
                    () -> readOnly.read(2000, buffer.asSlice(0, 100)));
            steps.rejected("RDMA READ at a negative offset", IllegalArgumentException.class,
                    () -> readOnly.read(-8, buffer.asSlice(0, 8)));
            steps.rejected("RDMA WRITE through a read-only export", UnsupportedOperationException.class,
                    () -> readOnly.write(0, buffer.asSlice(0, 8)));
            steps.rejected("fetch-and-add through a read-only export", UnsupportedOperationException.class,
                    () -> readOnly.fetchAndAdd(0, 1));
            RemoteRegion atomics = p.handOver(steps, exported, 0, 4096, EnumSet.of(RemoteAccess.ATOMIC));
            steps.rejected("compare-and-swap on a word that is not 8-byte aligned", IllegalArgumentException.class,
                    () -> atomics.compareAndSwap(4, 0, 1));
            steps.rejected("fetch-and-add on the last 4 bytes", IllegalArgumentException.class,
                    () -> atomics.fetchAndAdd(4092, 1));

            DeviceContext ownContext = run.open();
            MemoryRegion elsewhere = ownContext.allocateProtectionDomain("another-pd").allocateMemory(4096, EXPORTABLE,
                    "elsewhere");
            IllegalArgumentException foreignPd = steps.rejected("export a region of another PD",
                    IllegalArgumentException.class, () -> p.serverSession().export(elsewhere, Set.of(RemoteAccess.READ)));
            assertThat(foreignPd).hasMessageContaining(elsewhere.ref().toString()).hasMessageContaining("[READ]")
                    .hasMessageContaining(p.server().protectionDomain().ref().toString());
            MemoryRegion localOnly = p.server().allocateMemory(4096, EnumSet.of(AccessFlag.LOCAL_WRITE));
            IllegalArgumentException noAccess = steps.rejected("export for WRITE a region registered without "
                    + "REMOTE_WRITE", IllegalArgumentException.class,
                    () -> p.serverSession().export(localOnly, Set.of(RemoteAccess.WRITE)));
            assertThat(noAccess).hasMessageContaining("REMOTE_WRITE").hasMessageContaining(localOnly.ref().toString());

            RemoteKey own = p.serverSession().export(exported, Set.of(RemoteAccess.READ));
            steps.rejected("open a key on the side that exported it", IllegalArgumentException.class,
                    () -> p.serverSession().remoteRegion(own.toByteArray()));
            Pair other = p.another(steps, server, client);
            IllegalArgumentException foreign = steps.rejected("open a key of another session",
                    IllegalArgumentException.class, () -> other.clientSession().remoteRegion(own.toByteArray()));
            assertThat(foreign).hasMessageContaining("another session");

            steps.ok("then an RDMA READ within the export", () -> readOnly.read(0, buffer.asSlice(0, 2048))
                    .get(EVENT_WAIT.toSeconds(), TimeUnit.SECONDS));
            steps.observed("the bytes read", same(buffer, 0, exported.segment(), 1024, 2048));
            steps.observed("the connection", p.clientSession().isOpen() && p.serverSession().isOpen() ? "open on both "
                    + "sides" : "broken");
            assertThat(p.clientSession().closeFuture()).isNotDone();
            steps.ok("a request on it", () -> p.clientSession().requestAndWait(Message.of("still there?"), EVENT_WAIT));
            other.close(steps);
            p.close(steps);
            steps.ok("close the other context, its PD and region", () -> ownContext.close(ClosePolicy.CASCADE));
        }
    }

    static void revocationRace(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        try (Connections server = Connections.on(run.verbs(), "server");
                Connections client = Connections.on(run.verbs(), "client")) {
            Pair p = Pair.connect(run, steps, server, client);
            int size = 256 << 10;
            MemoryRegion exported = p.server().allocateMemory(size, EXPORTABLE);
            fill(exported.segment(), 31);
            long expected = crc(exported.segment(), 0, size);
            RemoteRegion remote = p.handOver(steps, exported, 0, size, Set.of(RemoteAccess.READ));
            MemoryRegion local = p.client().allocateMemory(16L * size, EnumSet.of(AccessFlag.LOCAL_WRITE));

            // The client keeps 8 reads in flight, into 16 destinations in turn, until a read is refused.
            List<CompletableFuture<Long>> reads = new ArrayList<>();
            AtomicInteger posted = new AtomicInteger();
            AtomicReference<RuntimeException> refusal = new AtomicReference<>();
            Thread reader = Thread.ofPlatform().name("one-sided-reader").start(() -> {
                for (int i = 0; i < 100_000 && !Thread.currentThread().isInterrupted(); i++) {
                    MemorySegment into = local.segment().asSlice((long) (i % 16) * size, size);
                    try {
                        reads.add(remote.read(0, into).thenApply(v -> crc(into, 0, size)));
                    } catch (RuntimeException e) {
                        refusal.set(e);
                        return;
                    }
                    posted.incrementAndGet();
                    if (reads.size() >= 8) {
                        reads.get(reads.size() - 8).join();
                    }
                }
            });
            long deadline = System.nanoTime() + EVENT_WAIT.toNanos();
            while (posted.get() < 8 && reader.isAlive() && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            steps.ok("close the exported region, cascade, with reads in flight",
                    () -> exported.close(ClosePolicy.CASCADE));
            reader.join(EVENT_WAIT.toMillis());
            assertThat(reader.isAlive()).as("the reader ends once refused").isFalse();
            steps.observed("the region", exported.isClosed() ? "deregistered" : "still open");
            steps.observed("the client's next read", refusal.get() == null ? "not refused"
                    : refusal.get() instanceof ResourceClosedException ? "refused locally" : refusal.get().toString());
            assertThat(refusal.get()).hasMessageContaining("revoked by the peer at");
            int wrong = 0;
            for (CompletableFuture<Long> r : reads) { // read after the reader's join
                if (r.get(EVENT_WAIT.toSeconds(), TimeUnit.SECONDS) != expected) {
                    wrong++;
                }
            }
            steps.observed("the reads posted before the revocation", wrong == 0 ? "all complete with the region's "
                    + "bytes" : wrong + " with other bytes");
            assertThat(reads).isNotEmpty();
            steps.observed("the connection", p.clientSession().isOpen() && p.serverSession().isOpen() ? "open on both "
                    + "sides" : "broken");
            steps.ok("a request on it", () -> p.clientSession().requestAndWait(Message.of("after the race"), EVENT_WAIT));
            p.close(steps);
        }
    }

    /**
     * The client's completions are held back (a completion callback blocks its loop thread) so that reads are
     * still in flight when the REVOKE is handled: the client allows one READ at a time (initiator depth 1),
     * so the others wait in its send queue behind the one whose completion is held. The REVOKE_ACK, and with
     * it the owner's close, must wait until those reads completed. The first hold is the callback of a
     * request whose reply the server sends on cue, so it surely runs on the loop thread.
     */
    static void revocationWaitsForReadsInFlight(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        try (Connections server = Connections.on(run.verbs(), "server");
                Connections client = Connections.on(run.verbs(), "client")) {
            Pair p = Pair.connect(run, steps, server, client, ConnectionSpec.rc().withHandshake(4, 1, 6, 7));
            int size = 64 << 10;
            MemoryRegion exported = p.server().allocateMemory(size, EXPORTABLE);
            fill(exported.segment(), 41);
            long expected = crc(exported.segment(), 0, size);
            RemoteRegion remote = p.handOver(steps, exported, 0, size, Set.of(RemoteAccess.READ));
            MemoryRegion local = p.client().allocateMemory(8L * size, EnumSet.of(AccessFlag.LOCAL_WRITE));

            LoopHold before = new LoopHold(() -> true);
            LoopHold after = new LoopHold(() -> !remote.isOpen());
            try {
                CompletableFuture<Void> held = p.clientSession().request(Message.of(Pair.ON_CUE))
                        .thenRun(before::maybeHold);
                p.cue().countDown();
                long deadline = System.nanoTime() + EVENT_WAIT.toNanos();
                while (!before.holding() && !held.isDone() && System.nanoTime() < deadline) {
                    Thread.sleep(1);
                }
                assertThat(before.holding()).as("the reply's callback holds the client's loop").isTrue();
                List<CompletableFuture<Long>> reads = new ArrayList<>();
                for (int i = 0; i < 8; i++) {
                    reads.add(read(remote, local, i, size, after));
                }
                CompletableFuture<Void> closed = CompletableFuture.runAsync(
                        () -> exported.close(ClosePolicy.CASCADE), Thread.ofVirtual()::start);
                Thread.sleep(100); // the REVOKE reaches the client's CQ, behind the completion held back
                steps.observed("the owner's close while the client's completions are held",
                        closed.isDone() ? "returned" : "waits");
                assertThat(closed).as("the owner's close waits for the REVOKE_ACK").isNotDone();
                before.release();
                while (!after.holding() && !closed.isDone() && System.nanoTime() < deadline) {
                    Thread.sleep(1);
                }
                int inFlight = remote.operationsInFlight();
                Thread.sleep(200);
                steps.observed("the owner's close with reads in flight after the REVOKE",
                        after.holding() && inFlight > 0 ? closed.isDone() ? "returned" : "waits"
                                : "no read was in flight");
                assertThat(inFlight).as("reads in flight once the REVOKE was handled").isPositive();
                assertThat(closed).as("the REVOKE_ACK waits for the reads in flight on the revoked export")
                        .isNotDone();
                after.release();
                steps.ok("the owner's close, once they completed", () -> closed.get(EVENT_WAIT.toSeconds(),
                        TimeUnit.SECONDS));
                assertThat(remote.operationsInFlight()).isZero();
                int wrong = 0;
                for (CompletableFuture<Long> r : reads) {
                    if (r.get(EVENT_WAIT.toSeconds(), TimeUnit.SECONDS) != expected) {
                        wrong++;
                    }
                }
                steps.observed("every read", wrong == 0 ? "completed with the region's bytes" : wrong
                        + " with other bytes");
            } finally {
                before.release(); // a failed run must not leave the loop held
                after.release();
            }
            steps.observed("the connection", p.clientSession().isOpen() && p.serverSession().isOpen() ? "open on both "
                    + "sides" : "broken");
            p.close(steps);
        }
    }

    private static CompletableFuture<Long> read(RemoteRegion remote, MemoryRegion local, int slot, int size,
            LoopHold hold) {
        MemorySegment into = local.segment().asSlice((long) slot * size, size);
        return remote.read(0, into).thenApply(v -> {
            hold.maybeHold();
            return crc(into, 0, size);
        });
    }

    /**
     * Blocks the completion loop thread in the first completion callback it runs while {@code when} holds,
     * until released (at most {@link CmScenarios#EVENT_WAIT}).
     */
    private static final class LoopHold {
        private final java.util.function.BooleanSupplier when;
        private final java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(1);
        private final java.util.concurrent.CountDownLatch released = new java.util.concurrent.CountDownLatch(1);
        private final java.util.concurrent.atomic.AtomicBoolean taken = new java.util.concurrent.atomic.AtomicBoolean();

        LoopHold(java.util.function.BooleanSupplier when) {
            this.when = when;
        }

        void maybeHold() {
            if (Thread.currentThread().getName().startsWith("rdma-completions-") && when.getAsBoolean()
                    && taken.compareAndSet(false, true)) {
                held.countDown();
                try {
                    released.await(EVENT_WAIT.toSeconds(), TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        boolean holding() {
            return held.getCount() == 0 && released.getCount() > 0;
        }

        void release() {
            released.countDown();
        }
    }

    static void closeWhileExported(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        try (Connections server = Connections.on(run.verbs(), "server");
                Connections client = Connections.on(run.verbs(), "client")) {
            Pair p = Pair.connect(run, steps, server, client);
            MemoryRegion exported = p.server().allocateMemory(8192, EXPORTABLE);
            RemoteRegion remote = p.handOver(steps, exported, 0, 8192, EnumSet.of(RemoteAccess.READ,
                    RemoteAccess.WRITE));

            CloseRefusedException strict = steps.refused("close the exported region, strict", exported::close);
            assertThat(strict.stuckReferences()).singleElement().satisfies(s -> {
                assertThat(s.cause()).isEqualTo(StuckReference.Cause.REMOTE_EXPORT);
                assertThat(s.consequence()).isEqualTo(StuckReference.Consequence.BREAKS_REMOTE_ACCESS);
                InetSocketAddress peer = p.server().peerAddress();
                assertThat(s.message()).contains("connection '" + p.server().name() + "' to ["
                        + peer.getAddress().getHostAddress() + "]:" + peer.getPort(),
                        "rkey 0x" + Integer.toHexString(exported.rkey()), "[READ, WRITE]", "since ");
            });
            steps.refused("close the exported region, attempt", () -> exported.close(ClosePolicy.ATTEMPT));
            assertThat(exported.isOpen()).as("a refused close touches nothing").isTrue();
            MemorySegment buffer = Arena.ofAuto().allocate(8192);
            steps.ok("the client still reads", () -> remote.read(0, buffer).get(EVENT_WAIT.toSeconds(), TimeUnit.SECONDS));

            ClosePlan plan = run.verbs().planClose(List.of(exported), ClosePolicy.CASCADE);
            assertThat(plan.steps().getFirst().preparations()).singleElement().asString()
                    .startsWith("revoke export 1 (rkey 0x").contains("send REVOKE", "REVOKE_ACK", "else disconnect");
            System.out.println(strict.getMessage());
            System.out.println(plan.describe());

            steps.ok("close the exported region, cascade", () -> exported.close(ClosePolicy.CASCADE));
            steps.observed("the region", exported.isClosed() ? "deregistered" : "still open");
            ResourceClosedException closed = steps.rejected("the client's read after the revocation",
                    ResourceClosedException.class, () -> remote.read(0, buffer));
            assertThat(closed).hasMessageContaining(remote.ref().toString()).hasMessageContaining("revoked by the peer at");
            assertThat(p.clientSession().remoteRegions()).isEmpty();
            assertThat(p.serverSession().exports()).isEmpty();
            steps.ok("a request on the connection", () -> p.clientSession().requestAndWait(Message.of("after"),
                    EVENT_WAIT));
            p.close(steps);
        }
    }

    /**
     * Regions exported both ways; then the server's side goes at once, as when its process dies: the client
     * gets the DREQ the kernel sends for a dead process's ids and nothing else (no REVOKE).
     */
    static void peerDeath(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        run.cmAddress(); // librdmacm's own context first: it stays for the process, and is not a leak
        Integer regionsBefore = run.liveObjects().get("mr");
        try (Connections server = Connections.on(run.verbs(), "server");
                Connections client = Connections.on(run.verbs(), "client")) {
            Pair p = Pair.connect(run, steps, server, client);
            MemoryRegion serverRegion = p.server().allocateMemory(4096, EXPORTABLE);
            MemoryRegion clientRegion = p.client().allocateMemory(4096, EXPORTABLE);
            RemoteRegion clientHandle = p.handOver(steps, serverRegion, 0, 4096, ALL);
            RemoteKey back = p.clientSession().export(clientRegion, ALL);
            RemoteRegion serverHandle = p.serverSession().remoteRegion(back.toByteArray());
            MemorySegment buffer = Arena.ofAuto().allocate(4096);
            steps.ok("a read each way", () -> {
                clientHandle.read(0, buffer).get(EVENT_WAIT.toSeconds(), TimeUnit.SECONDS);
                serverHandle.read(0, buffer).get(EVENT_WAIT.toSeconds(), TimeUnit.SECONDS);
            });

            steps.ok("the server's side goes at once", () -> p.server().close(Duration.ZERO));
            steps.observed("the client's connection", p.client().awaitDisconnected(EVENT_WAIT) ? "disconnected"
                    : "still " + p.client().state());
            long deadline = System.nanoTime() + EVENT_WAIT.toNanos();
            while (clientHandle.isOpen() && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            ResourceClosedException gone = steps.rejected("a read through the client's handle",
                    ResourceClosedException.class, () -> clientHandle.read(0, buffer));
            assertThat(gone).hasMessageContaining("ended");
            steps.observed("the server's handle and region", serverHandle.isClosed() && serverRegion.isClosed()
                    ? "released with its connection" : "left");
            steps.ok("close the client's exported region, strict", clientRegion::close);
            steps.ok("close the client's connection", p.client()::close);
            assertThat(run.verbs().resources()).extracting(VerbsResource::kind)
                    .doesNotContain(ResourceKind.REMOTE_REGION, ResourceKind.MEMORY_REGION, ResourceKind.QUEUE_PAIR);
            steps.ok("close the listener", p.listener()::close);
        }
        // The kernel's own count (rdma resource show mr, in the guest), not only the graph's.
        steps.observed("memory regions of this process", java.util.Objects.equals(run.liveObjects().get("mr"),
                regionsBefore) ? "as many as before" : run.liveObjects().get("mr") + ", " + regionsBefore + " before");
        assertThat(run.liveObjects().get("mr")).as("memory regions the kernel holds for this process")
                .isEqualTo(regionsBefore);
    }

    static void depthsBeyondTheDevice(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        int maxInit;
        int maxResp;
        try (DeviceContext ctx = run.open()) {
            maxInit = ctx.attributes().maxQpInitRdAtom();
            maxResp = ctx.attributes().maxQpRdAtom();
        }
        try (Connections server = Connections.on(run.verbs(), "server");
                Connections client = Connections.on(run.verbs(), "client")) {
            CompletableFuture<RuntimeException> acceptFailed = new CompletableFuture<>();
            ConnectionListener greedy = steps.make("listen with responderResources 200", () -> server.listen(
                    ListenSpec.on(new InetSocketAddress(run.cmAddress(), 0)).connection(ConnectionSpec.rc()
                            .withHandshake(200, 4, 6, 7)), request -> {
                                try {
                                    request.accept();
                                } catch (RuntimeException e) {
                                    acceptFailed.complete(e);
                                    throw e;
                                }
                            }));
            IllegalArgumentException tooDeep = steps.rejected("connect with initiatorDepth 200",
                    IllegalArgumentException.class, () -> client.connect(ConnectSpec.to(greedy.address())
                            .connection(ConnectionSpec.rc().withHandshake(4, 200, 6, 7))));
            assertThat(tooDeep).hasMessageContaining("initiatorDepth 200")
                    .hasMessageContaining("max_qp_init_rd_atom is " + maxInit)
                    .hasMessageContaining(run.device().name());
            steps.fails("connect to the listener with responderResources 200", Errno.ECONNREFUSED,
                    () -> client.connect(ConnectSpec.to(greedy.address())));
            assertThat(acceptFailed.get(EVENT_WAIT.toSeconds(), TimeUnit.SECONDS))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("responderResources 200")
                    .hasMessageContaining("max_qp_rd_atom is " + maxResp);
            assertThat(client.connections()).isEmpty();
            steps.ok("close the listener", greedy::close);
        }
    }

    // ---- building blocks ----------------------------------------------------------------------------

    /**
     * A connected pair of sessions: the client's connection, the server's, and what each received as one-way
     * messages (a key travels in one).
     */
    private record Pair(ConnectionListener listener, Connection client, Connection server,
            BlockingQueue<byte[]> clientInbox, java.util.concurrent.CountDownLatch cue) {

        /** A request the server answers only once {@link #cue()} is counted down. */
        static final String ON_CUE = "answer on cue";

        static Pair connect(ScenarioRun run, Steps steps, Connections server, Connections client) throws Exception {
            return connect(run, steps, server, client, ConnectionSpec.rc());
        }

        /** A listener on {@code server} whose handler echoes requests, and a pair through it. */
        static Pair connect(ScenarioRun run, Steps steps, Connections server, Connections client,
                ConnectionSpec clientSpec) throws Exception {
            java.util.concurrent.CountDownLatch cue = new java.util.concurrent.CountDownLatch(1);
            SessionSpec echo = SessionSpec.defaults().handler(m -> {
                if (m.isRequest()) {
                    if (m.message().asString().equals(ON_CUE)) {
                        cue.await(EVENT_WAIT.toSeconds(), TimeUnit.SECONDS);
                    }
                    m.reply(m.toByteArray());
                }
            });
            ConnectionListener listener = steps.make("listen", () -> server.listen(ListenSpec.on(
                    new InetSocketAddress(run.cmAddress(), 0)).session(echo), request -> request.accept()));
            return join(steps, server, client, listener, cue, clientSpec);
        }

        /** Another pair through the same listener. */
        Pair another(Steps steps, Connections server, Connections client) throws Exception {
            return join(steps, server, client, listener, cue, ConnectionSpec.rc());
        }

        private static Pair join(Steps steps, Connections server, Connections client, ConnectionListener listener,
                java.util.concurrent.CountDownLatch cue, ConnectionSpec clientSpec) throws Exception {
            BlockingQueue<byte[]> inbox = new LinkedBlockingQueue<>();
            List<Connection> before = server.connections();
            Connection c = steps.make("connect", () -> client.connect(ConnectSpec.to(listener.address())
                    .connection(clientSpec).session(SessionSpec.defaults().handler(m -> {
                        if (m.isRequest()) {
                            m.reply(m.toByteArray());
                        } else {
                            inbox.add(m.toByteArray());
                        }
                    }))));
            Connection s = awaitNew(server, before);
            steps.observed("server connection", s.awaitState(io.rdmaverbs.verbs.connection.ConnectionState.CONNECTED,
                    EVENT_WAIT) ? "CONNECTED" : s.state().name());
            return new Pair(listener, c, s, inbox, cue);
        }

        private static Connection awaitNew(Connections server, List<Connection> before) throws InterruptedException {
            long deadline = System.nanoTime() + EVENT_WAIT.toNanos();
            while (System.nanoTime() < deadline) {
                for (Connection c : server.connections()) {
                    if (!before.contains(c)) {
                        return c;
                    }
                }
                Thread.sleep(2);
            }
            throw new AssertionError("no new server connection within " + EVENT_WAIT);
        }

        Session clientSession() {
            return client.session();
        }

        Session serverSession() {
            return server.session();
        }

        /** The server exports the slice, sends the key in a message; the client opens what arrived. */
        RemoteRegion handOver(Steps steps, MemoryRegion region, long offset, long length, Set<RemoteAccess> access)
                throws Exception {
            RemoteKey key = steps.make("export " + access + " and send the key", () -> {
                RemoteKey k = serverSession().export(region, offset, length, access);
                serverSession().send(Message.of(k.toByteArray())).get(EVENT_WAIT.toSeconds(), TimeUnit.SECONDS);
                return k;
            });
            byte[] arrived = clientInbox.poll(EVENT_WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(arrived).as("the key's message").isNotNull();
            assertThat(RemoteKey.unpack(arrived)).isEqualTo(key);
            return steps.make("open the key on the client", () -> clientSession().remoteRegion(arrived));
        }

        void close(Steps steps) throws Exception {
            steps.ok("close the client's connection", client::close);
            steps.observed("server connection", server.awaitDisconnected(EVENT_WAIT) ? "disconnected"
                    : "still " + server.state());
            steps.ok("close the server's connection", server::close);
        }
    }

    private static void fill(MemorySegment segment, long seed) {
        byte[] bytes = new byte[(int) segment.byteSize()];
        new Random(seed).nextBytes(bytes);
        MemorySegment.copy(bytes, 0, segment, ValueLayout.JAVA_BYTE, 0, bytes.length);
    }

    /** Whether {@code length} bytes of two segments are the same, as a step's observed outcome. */
    private static String same(MemorySegment a, long aOffset, MemorySegment b, long bOffset, int length) {
        return crc(a, aOffset, length) == crc(b, bOffset, length) ? "checksum matches" : "checksum differs";
    }
}
