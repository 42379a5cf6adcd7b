package io.rdmaverbs.verbs.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import io.rdmaverbs.verbs.ClosePolicy;
import io.rdmaverbs.verbs.CloseReport;
import io.rdmaverbs.verbs.CmEventChannel;
import io.rdmaverbs.verbs.ResourceKind;
import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.VerbsResource;
import io.rdmaverbs.verbs.provider.simulated.DeviceProfile;
import io.rdmaverbs.verbs.provider.simulated.FaultPlan;
import io.rdmaverbs.verbs.provider.simulated.ResourceCounts;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;

import org.jspecify.annotations.Nullable;

/**
 * One scenario swept with a fault at each provider call in turn, as SQLite fails its N-th allocation
 * for every N: a clean run counts the calls, then run k fails call k ({@link FaultPlan#failAnyCall},
 * errno {@link FaultPlan#typicalErrno}). The scenario may fail because of the fault; what must hold
 * after every run is that the graph told the truth about the simulated kernel, both after the
 * scenario and after the final cascade, and that a retried cascade leaves nothing allocated and no
 * thread of the run running.
 */
final class FaultSweep {

    /**
     * What a sweep covered: the runs made, the runs in which a fault was actually injected, and whether
     * it went position by position (else verb by verb).
     */
    record Coverage(int runs, int injectionPoints, boolean everyPosition) {
    }

    /**
     * Above this many calls a scenario is one whose threads spin on the data path (pollers racing a
     * close): its calls are neither countable in advance nor worth a run each, so it is swept verb by
     * verb instead, failing the first {@link #OCCURRENCES_PER_VERB} calls of each verb it makes.
     */
    static final int MAX_POSITIONS = 400;
    static final int OCCURRENCES_PER_VERB = 6;

    private static final Duration THREAD_GRACE = Duration.ofSeconds(2);
    /**
     * How long a run with a fault may go on before it is interrupted. A fault can leave a scenario waiting
     * its full event wait (20 s) for what will then never come: a CONNECT_REQUEST whose REQ failed, the
     * release of an id whose {@code rdma_destroy_id} was refused. The clean run is never cut, and on the
     * simulator takes under a second, its deliberate waits (a peer kept silent, a quiet channel) included.
     */
    static final Duration PATIENCE = Duration.ofSeconds(1);
    /**
     * How long the final cascade waits for a DISCONNECTED: when a fault broke the connect between two ends
     * of one graph, the DREP of the end not yet closed never comes, and every run would wait the default.
     */
    static final Duration DISCONNECT_TIMEOUT = Duration.ofMillis(50);

    private final DeviceProfile profile;
    private final Scenario scenario;
    private final int maxPositions;
    private final int occurrencesPerVerb;

    FaultSweep(DeviceProfile profile, Scenario scenario) {
        this(profile, scenario, MAX_POSITIONS, OCCURRENCES_PER_VERB);
    }

    private FaultSweep(DeviceProfile profile, Scenario scenario, int maxPositions, int occurrencesPerVerb) {
        this.profile = profile;
        this.scenario = scenario;
        this.maxPositions = maxPositions;
        this.occurrencesPerVerb = occurrencesPerVerb;
    }

    /**
     * A sweep verb by verb whatever the scenario's call count, failing the first {@code occurrences} calls
     * of each verb: for the connecting scenarios, whose runs wait on purpose (a peer kept silent for a
     * disconnect timeout, a channel watched for an event that must not come), so that a run per position
     * would cost minutes.
     */
    static FaultSweep verbByVerb(DeviceProfile profile, Scenario scenario, int occurrences) {
        return new FaultSweep(profile, scenario, 0, occurrences);
    }

    /**
     * The sweep, on a thread of a group of its own: a run's threads inherit it, so the check for threads a
     * run left running sees only this sweep's, whatever sweeps run beside it (FaultSweepTest runs them
     * concurrently). Not a daemon, whatever the caller is (JUnit's parallel workers are): a thread takes its
     * daemon status from the thread that starts it, and the check looks for the run's non-daemon threads.
     */
    Coverage sweep() throws Exception {
        ThreadGroup group = new ThreadGroup("fault sweep of '" + scenario.name() + "' on " + profile.name());
        AtomicReference<Object> outcome = new AtomicReference<>();
        Thread sweeper = Thread.ofPlatform().group(group).daemon(false).name("fault-sweep").start(() -> {
            try {
                outcome.set(sweepHere());
            } catch (Throwable e) {
                outcome.set(e);
            }
        });
        try {
            sweeper.join();
        } catch (InterruptedException e) {
            sweeper.interrupt();   // the caller's timeout: the sweep stops with it
            throw e;
        }
        return switch (outcome.get()) {
            case Coverage c -> c;
            case Exception e -> throw e;
            case Error e -> throw e;
            case null, default -> throw new AssertionError("the sweep of '" + scenario.name() + "' ended with "
                    + outcome.get());
        };
    }

    private Coverage sweepHere() throws Exception {
        FaultPlan clean = run(plan -> { }, true);
        int runs = 1;
        int injected = 0;
        if (clean.calls() <= maxPositions) {
            for (int k = 1; k <= clean.calls(); k++) {
                int position = k;
                injected += run(plan -> plan.failAnyCall(position, FaultPlan::typicalErrno), false).injected().size();
                runs++;
            }
            return new Coverage(runs, injected, true);
        }
        for (Map.Entry<String, Long> verb : clean.callsByVerb().entrySet()) {
            for (int n = 1; n <= Math.min(verb.getValue(), occurrencesPerVerb); n++) {
                int nth = n;
                injected += run(plan -> plan.failCall(verb.getKey(), nth, FaultPlan.typicalErrno(verb.getKey())), false)
                        .injected().size();
                runs++;
            }
        }
        return new Coverage(runs, injected, false);
    }

    /**
     * One run of the scenario on a fresh provider with {@code faults} planned, then the checks.
     *
     * @return the run's fault plan, with its counts and what it injected (nothing when a timing
     *         dependent run made fewer calls than the clean one)
     */
    private FaultPlan run(Consumer<FaultPlan> planned, boolean clean) throws Exception {
        SimulatedProvider sim = SimulatedProvider.of(profile);
        FaultPlan faults = sim.faults();
        planned.accept(faults);
        Set<Thread> threadsBefore = liveThreads();
        VerbsTarget target = new VerbsTarget(profile.name(), () -> sim, profile.name(), false);
        @Nullable ScenarioRun run = null;
        Thread sweeper = Thread.currentThread();
        // Past PATIENCE a faulted run is interrupted: what it waits for will not come, the checks below matter.
        Thread patience = Thread.ofVirtual().unstarted(() -> {
            try {
                Thread.sleep(PATIENCE);
                sweeper.interrupt();
            } catch (InterruptedException theRunEndedInTime) {
                // nothing to cut short
            }
        });
        try {
            run = ScenarioRun.start(target);
            if (!clean) {
                patience.start();
            }
            scenario.body().run(run);
        } catch (Throwable expectedWhenAFaultHit) {
            if (clean) {
                throw new AssertionError("the clean run of '" + scenario.name() + "' failed", expectedWhenAFaultHit);
            }
        } finally {
            patience.interrupt();
            if (patience.isAlive()) {
                patience.join();
            }
            Thread.interrupted();   // clears an interrupt that came as the run ended
        }
        String at = "'" + scenario.name() + "' on " + profile.name() + " with " + faults.injected();
        if (run != null) {
            List<Verbs> graphs = new ArrayList<>(run.otherGraphs());
            graphs.add(run.verbs());
            assertGraphsTellTheTruth(sim, graphs, at + ", after the scenario");
            for (Verbs graph : graphs) {
                shortenDisconnectTimeouts(graph);
                CloseReport cascade = graph.close(ClosePolicy.CASCADE);
                assertGraphsTellTheTruth(sim, graphs, at + ", after the final cascade");
                if (!cascade.isComplete()) {
                    // Only an injected release failure may stop the cascade; a retry then finishes it.
                    assertThat(cascade.left()).as(at).allSatisfy(left -> assertThat(faults.injected()).as(at)
                            .isNotEmpty());
                    assertThat(graph.close(ClosePolicy.CASCADE).left()).as(at + ", the retried cascade").isEmpty();
                }
                assertThat(graph.resources()).as(at + ": the graph after its cascade").isEmpty();
            }
        }
        ResourceCounts counts = sim.resourceCounts(profile.name());
        int ownContexts = counts.contexts() - sim.connectionManagerContexts(profile.name());
        assertThat(ownContexts + counts.objects()).as(at + ": %s (librdmacm's own context excepted)", counts).isZero();
        assertThat(sim.liveCmIds()).as(at + ": CM ids left").isZero();
        assertThat(sim.leakedObjects()).as(at).isEmpty();
        assertNoThreadLeftRunning(threadsBefore, at);
        return faults;
    }

    /**
     * The resources the graphs hold open, by kind, equal the objects the simulated kernel holds: a
     * resource the graph calls open whose object is gone, or an object the graph forgot, breaks it.
     * XRC domains are shared per inode and counted once by the kernel, and an XRC receive QP lives on
     * while a registration holds it, so those two are compared only as present or absent.
     */
    private void assertGraphsTellTheTruth(SimulatedProvider sim, List<Verbs> graphs, String at) {
        Map<ResourceKind, Integer> open = new EnumMap<>(ResourceKind.class);
        for (Verbs graph : graphs) {
            for (VerbsResource r : graph.resources()) {
                open.merge(r.kind(), 1, Integer::sum);
            }
        }
        ResourceCounts kernel = sim.resourceCounts(profile.name());
        // librdmacm's own context is the kernel's while the process lives; the graph holds it only while adopted.
        long ownContexts = graphs.stream().flatMap(g -> g.contexts().stream()).filter(c -> !c.isAdopted()).count();
        Map<String, Integer> graphSays = Map.of(
                "contexts", (int) ownContexts,
                "pds", open.getOrDefault(ResourceKind.PROTECTION_DOMAIN, 0),
                "compChannels", open.getOrDefault(ResourceKind.COMPLETION_CHANNEL, 0),
                "cqs", open.getOrDefault(ResourceKind.COMPLETION_QUEUE, 0),
                "srqs", open.getOrDefault(ResourceKind.SHARED_RECEIVE_QUEUE, 0),
                "mrs", open.getOrDefault(ResourceKind.MEMORY_REGION, 0),
                "ahs", open.getOrDefault(ResourceKind.ADDRESS_HANDLE, 0),
                "xrcds", Math.min(1, open.getOrDefault(ResourceKind.XRC_DOMAIN, 0)),
                "qps", open.containsKey(ResourceKind.XRC_RECEIVE_QP_REGISTRATION)
                        ? Math.min(1, open.getOrDefault(ResourceKind.QUEUE_PAIR, 0) + 1)
                        : open.getOrDefault(ResourceKind.QUEUE_PAIR, 0));
        Map<String, Integer> kernelHas = Map.of(
                "contexts", kernel.contexts() - sim.connectionManagerContexts(profile.name()), "pds", kernel.pds(), "compChannels", kernel.compChannels(),
                "cqs", kernel.cqs(), "srqs", kernel.srqs(), "mrs", kernel.mrs(), "ahs", kernel.ahs(),
                "xrcds", Math.min(1, kernel.xrcds()),
                "qps", open.containsKey(ResourceKind.XRC_RECEIVE_QP_REGISTRATION) ? Math.min(1, kernel.qps())
                        : kernel.qps());
        assertThat(graphSays).as(at + ": the graph's open resources against the simulated kernel's %s", kernel)
                .isEqualTo(kernelHas);
    }

    private static void shortenDisconnectTimeouts(Verbs graph) {
        for (VerbsResource r : graph.resources()) {
            if (r instanceof CmEventChannel channel) {
                channel.disconnectTimeout(DISCONNECT_TIMEOUT);
            }
        }
    }

    /** The live platform threads of the caller's thread group (virtual threads are in none of a sweep's). */
    private static Set<Thread> liveThreads() {
        ThreadGroup group = Thread.currentThread().getThreadGroup();
        Set<Thread> live = new HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getThreadGroup() == group) {
                live.add(t);
            }
        }
        return live;
    }

    /** Threads the run started that are not daemons must end (an executor shut down takes a moment). */
    private static void assertNoThreadLeftRunning(Set<Thread> before, String at) throws InterruptedException {
        long deadline = System.nanoTime() + THREAD_GRACE.toNanos();
        List<Thread> left;
        do {
            left = liveThreads().stream().filter(t -> !before.contains(t) && t.isAlive() && !t.isDaemon()).toList();
            if (left.isEmpty()) {
                return;
            }
            Thread.sleep(5);
        } while (System.nanoTime() < deadline);
        assertThat(left).as(at + ": threads the run started and left running").isEmpty();
    }
}
