package io.rdmaverbs.benchmarks.connection;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.Consumer;

import io.rdmaverbs.verbs.CmEvent;
import io.rdmaverbs.verbs.CmEventChannel;
import io.rdmaverbs.verbs.CmId;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.ProtectionDomain;
import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.connection.ConnectSpec;
import io.rdmaverbs.verbs.connection.Connection;
import io.rdmaverbs.verbs.connection.ConnectionSpec;
import io.rdmaverbs.verbs.connection.Connections;
import io.rdmaverbs.verbs.attr.CmConnectionParams;
import io.rdmaverbs.verbs.attr.CmEventType;
import io.rdmaverbs.verbs.attr.CmPortSpace;

/**
 * {@code cmtime} (rdmacm-utils, rdma-core v44, the one the guests run) through the project's API: the
 * client creates {@code CONNECTIONS} ids, then runs each step for all of them before the next, exactly
 * as cmtime does: the asynchronous steps (resolve addr, resolve route, connect, disconnect) are issued
 * for every id and then awaited on one event thread, the synchronous ones (create id, create qp,
 * destroy) are a loop of calls. Printed as cmtime prints: per step the total, the slowest and fastest
 * connection, and the total per connection, plus what cmtime cannot show, the time the calling thread
 * spent issuing the step ({@code issue us/conn}): what the step costs in calls, apart from the wait
 * for the kernel and the peer.
 *
 * <p>What each step does, as cmtime v44 does it: create qp is {@code rdma_create_qp(3)} with no PD and
 * no CQs, for which librdmacm makes two completion channels and two one-entry CQs on its own PD; so here
 * each QP gets the same two channels and CQs, on one PD per device context. Disconnect is
 * {@code rdma_disconnect(3)} and {@code rdma_destroy_qp(3)} (which in librdmacm also destroys those CQs
 * and channels) for every id, then the wait for all DISCONNECTED events; destroy is
 * {@code rdma_destroy_id(3)}.
 *
 * <p>Then, as {@code api connect} and {@code api close}, the same number of connections through
 * {@link Connections}: all {@code connectAsync} at once and awaited (resolve, route, PD, CQ, QP, one
 * registered buffer, a receive posted, connect), then all closed at once (disconnect, wait for
 * DISCONNECTED, release). The server, like cmtime's, accepts on one thread and answers each
 * DISCONNECTED on another (disconnect, destroy the QP, destroy the id); it serves both phases.
 *
 * <pre>
 * usage: CmTime server ADDRESS PORT CONNECTIONS [PASSES]  serves 2 x PASSES x CONNECTIONS, then exits
 *        CmTime client ADDRESS PORT CONNECTIONS [PASSES]  ADDRESS is the server's (fe80::...%eth0 works);
 *                                                         PASSES (1) runs of it, each with its table
 *        CmTime simulated CONNECTIONS                     both in this JVM on two simulated hosts, 2
 *                                                         passes: a smoke run
 * </pre>
 */
public final class CmTime {

    /** The steps cmtime v44 prints, in its order (bind addr is left out, as cmtime does without -b), then the API's. */
    enum Step {
        CREATE_ID("create id"), RESOLVE_ADDR("resolve addr"), RESOLVE_ROUTE("resolve route"), CREATE_QP("create qp"),
        CONNECT("connect"), DISCONNECT("disconnect"), DESTROY("destroy"), API_CONNECT("api connect"),
        API_CLOSE("api close");

        final String label;

        Step(String label) {
            this.label = label;
        }
    }

    /** cmtime's default: 2000 ms for rdma_resolve_addr and rdma_resolve_route, 2 retries of each on an error event. */
    static final Duration RESOLVE_TIMEOUT = Duration.ofMillis(2000);
    static final int RETRIES = 2;
    private static final Duration EVENT_SLICE = Duration.ofMillis(100);

    private final Verbs verbs;
    private final InetSocketAddress server;
    private final int connections;
    private final CmEventChannel channel;
    private final Node[] nodes;
    private final Map<CmId, Node> byId = new ConcurrentHashMap<>();
    private final Map<DeviceContext, ProtectionDomain> pds = new ConcurrentHashMap<>();
    /** Per step: started (issued), completed (its event arrived), as cmtime's started[] and completed[]. */
    private final AtomicIntegerArray started = new AtomicIntegerArray(Step.values().length);
    private final AtomicIntegerArray completed = new AtomicIntegerArray(Step.values().length);
    private final long[][] times = new long[Step.values().length][2];
    private final long[] issue = new long[Step.values().length];
    /** The API phase's connections, timed as {@link #nodes} are. */
    private final List<Node> apiNodes = new ArrayList<>();
    private volatile boolean running = true;

    /** One connection's id, its QP's resources and, per step, when it started and ended (ns, 0 = not). */
    private static final class Node {
        final long[][] times = new long[Step.values().length][2];
        CmId id;
        CmQueuePair qp;
        volatile boolean error;
        int retries;
    }

    private CmTime(Verbs verbs, InetSocketAddress server, int connections) {
        this.verbs = verbs;
        this.server = server;
        this.connections = connections;
        this.channel = verbs.createCmEventChannel("cmtime/events");
        this.nodes = new Node[connections];
    }

    public static void main(String[] args) throws Exception {
        int passes = args.length == 5 ? Integer.parseInt(args[4]) : 1;
        if ((args.length == 4 || args.length == 5) && args[0].equals("server")) {
            try (Verbs verbs = Hosts.nativeVerbs()) {
                new CmTimeServer(verbs, Hosts.address(args[1], Integer.parseInt(args[2])),
                        2 * passes * Integer.parseInt(args[3])).serve();
            }
        } else if ((args.length == 4 || args.length == 5) && args[0].equals("client")) {
            try (Verbs verbs = Hosts.nativeVerbs()) {
                run(verbs, Hosts.address(args[1], Integer.parseInt(args[2])), Integer.parseInt(args[3]), passes);
            }
        } else if (args.length == 2 && args[0].equals("simulated")) {
            int n = Integer.parseInt(args[1]);
            try (Hosts.SimulatedPair pair = Hosts.SimulatedPair.create()) {
                InetSocketAddress address = new InetSocketAddress(pair.serverAddress(), 7471);
                CmTimeServer srv = new CmTimeServer(pair.server(), address, 2 * 2 * n);
                CompletableFuture<Void> served = CompletableFuture.runAsync(srv::serve,
                        Executors.newSingleThreadExecutor(Thread.ofPlatform().daemon().factory()));
                srv.awaitListening();
                run(pair.client(), address, n, 2);
                served.get();
            }
        } else {
            System.err.println("usage: CmTime server|client ADDRESS PORT CONNECTIONS [PASSES] | CmTime simulated CONNECTIONS");
            System.exit(2);
        }
    }

    /**
     * The client, {@code passes} times in this JVM, each pass's table printed as it ends: the first pass
     * is what cmtime measures, a fresh process; the later ones show how much of it was the JVM warming
     * up (100 connections run each step's code only 100 times, mostly interpreted).
     */
    static void run(Verbs verbs, InetSocketAddress server, int connections, int passes) throws Exception {
        for (int pass = 1; pass <= passes; pass++) {
            System.out.println("pass " + pass + " of " + passes);
            System.out.print(pass(verbs, server, connections));
            System.out.flush();
        }
    }

    /** One pass: every step for all connections, then the API phase; cmtime's table, as text. */
    static String pass(Verbs verbs, InetSocketAddress server, int connections) throws Exception {
        CmTime t = new CmTime(verbs, server, connections);
        Thread events = Thread.ofPlatform().name("cmtime-events").start(t::processEvents);
        try {
            t.client();
        } finally {
            t.running = false;
            events.join();
            t.channel.close();
        }
        t.apiPhase();
        return t.table();
    }

    private void client() {
        long s = startTime(Step.CREATE_ID);
        for (int i = 0; i < connections; i++) {
            Node n = new Node();
            nodes[i] = n;
            n.times[Step.CREATE_ID.ordinal()][0] = System.nanoTime();
            n.id = channel.createId(CmPortSpace.TCP, "cmtime/" + i);
            n.times[Step.CREATE_ID.ordinal()][1] = System.nanoTime();
            byId.put(n.id, n);
        }
        endTime(Step.CREATE_ID, s);

        asynchronous(Step.RESOLVE_ADDR, n -> {
            n.retries = RETRIES;
            n.id.resolveAddress(null, server, RESOLVE_TIMEOUT);
        });
        asynchronous(Step.RESOLVE_ROUTE, n -> {
            n.retries = RETRIES;
            n.id.resolveRoute(RESOLVE_TIMEOUT);
        });

        s = startTime(Step.CREATE_QP);
        for (Node n : nodes) {
            if (n.error) {
                continue;
            }
            n.times[Step.CREATE_QP.ordinal()][0] = System.nanoTime();
            n.qp = CmQueuePair.create(n.id, pds.computeIfAbsent(CmQueuePair.contextOf(n.id),
                    ctx -> ctx.allocateProtectionDomain("cmtime/pd")));
            n.times[Step.CREATE_QP.ordinal()][1] = System.nanoTime();
        }
        endTime(Step.CREATE_QP, s);

        // cmtime: responder_resources 1, initiator_depth 1, retry_count = its retries (2); rnr_retry 0.
        CmConnectionParams params = new CmConnectionParams(new byte[0], 1, 1, RETRIES, 0);
        asynchronous(Step.CONNECT, n -> n.id.connect(params));
        asynchronous(Step.DISCONNECT, n -> {
            n.id.disconnect();
            n.qp.close();
        });

        s = startTime(Step.DESTROY);
        for (Node n : nodes) {
            n.times[Step.DESTROY.ordinal()][0] = System.nanoTime();
            n.id.close();
            n.times[Step.DESTROY.ordinal()][1] = System.nanoTime();
        }
        endTime(Step.DESTROY, s);
        pds.values().forEach(ProtectionDomain::close);
    }

    /** Issues {@code call} on every id without an error, then yields until each one's event came, as cmtime. */
    private void asynchronous(Step step, Consumer<Node> call) {
        int k = step.ordinal();
        long s = startTime(step);
        for (Node n : nodes) {
            if (n.error) {
                continue;
            }
            n.times[k][0] = System.nanoTime();
            try {
                call.accept(n);
            } catch (RuntimeException e) {
                System.out.println(step.label + " failed: " + e.getMessage());
                n.error = true;
                continue;
            }
            started.incrementAndGet(k);
        }
        issue[k] = System.nanoTime() - s;
        while (started.get(k) != completed.get(k)) {
            Thread.yield();
        }
        times[k][1] = System.nanoTime();
    }

    private long startTime(Step step) {
        long now = System.nanoTime();
        times[step.ordinal()][0] = now;
        return now;
    }

    private void endTime(Step step, long start) {
        long now = System.nanoTime();
        times[step.ordinal()][1] = now;
        issue[step.ordinal()] = now - start;
    }

    /** cmtime's process_events and cma_handler: each event timed on arrival, acknowledged at once. */
    private void processEvents() {
        while (running) {
            Optional<CmEvent> next = channel.awaitEvent(EVENT_SLICE);
            if (next.isEmpty()) {
                continue;
            }
            long now = System.nanoTime();
            CmEvent event = next.get();
            CmEventType type = event.type();
            int status = event.status();
            Node n = byId.get(event.cmId());
            event.ack();
            if (n == null) {
                continue;
            }
            switch (type) {
                case ADDR_RESOLVED -> end(n, Step.RESOLVE_ADDR, now);
                case ROUTE_RESOLVED -> end(n, Step.RESOLVE_ROUTE, now);
                case ESTABLISHED -> end(n, Step.CONNECT, now);
                case DISCONNECTED -> end(n, Step.DISCONNECT, now);
                case ADDR_ERROR -> retryOrFail(n, Step.RESOLVE_ADDR, type, status, now,
                        () -> n.id.resolveAddress(null, server, RESOLVE_TIMEOUT));
                case ROUTE_ERROR -> retryOrFail(n, Step.RESOLVE_ROUTE, type, status, now,
                        () -> n.id.resolveRoute(RESOLVE_TIMEOUT));
                case CONNECT_ERROR, UNREACHABLE, REJECTED -> {
                    System.out.println("event: " + type.cName() + ", error: " + status);
                    n.error = true;
                    end(n, Step.CONNECT, now);
                }
                default -> {
                    // TIMEWAIT_EXIT and the like: nothing timed.
                }
            }
        }
    }

    private void retryOrFail(Node n, Step step, CmEventType type, int status, long now, Runnable retry) {
        if (n.retries-- > 0) {
            try {
                retry.run();
                return;
            } catch (RuntimeException e) {
                // counted as the failure below
            }
        }
        System.out.println(type.cName() + ", error: " + status);
        n.error = true;
        end(n, step, now);
    }

    private void end(Node n, Step step, long now) {
        n.times[step.ordinal()][1] = now;
        completed.incrementAndGet(step.ordinal());
    }

    /** All connections through {@link Connections} at once, then all closed at once. */
    private void apiPhase() throws Exception {
        int connect = Step.API_CONNECT.ordinal();
        int close = Step.API_CLOSE.ordinal();
        long[][] each = new long[connections][4];
        ConnectSpec spec = ConnectSpec.to(server).raw().timeout(RESOLVE_TIMEOUT).connection(ConnectionSpec.rc(1, 64));
        try (Connections cm = Connections.on(verbs, "cmtime-api")) {
            List<CompletableFuture<Connection>> made = new ArrayList<>(connections);
            long s = System.nanoTime();
            times[connect][0] = s;
            for (int i = 0; i < connections; i++) {
                long[] mine = each[i];
                mine[0] = System.nanoTime();
                made.add(cm.connectAsync(spec).whenComplete((c, e) -> mine[1] = System.nanoTime()));
            }
            issue[connect] = System.nanoTime() - s;
            CompletableFuture.allOf(made.toArray(CompletableFuture[]::new)).join();
            times[connect][1] = System.nanoTime();

            try (ExecutorService closers = Executors.newVirtualThreadPerTaskExecutor()) {
                List<CompletableFuture<Void>> closed = new ArrayList<>(connections);
                s = System.nanoTime();
                times[close][0] = s;
                for (int i = 0; i < connections; i++) {
                    long[] mine = each[i];
                    Connection c = made.get(i).join();
                    closed.add(CompletableFuture.runAsync(() -> {
                        mine[2] = System.nanoTime();
                        c.close();
                        mine[3] = System.nanoTime();
                    }, closers));
                }
                issue[close] = System.nanoTime() - s;
                CompletableFuture.allOf(closed.toArray(CompletableFuture[]::new)).join();
                times[close][1] = System.nanoTime();
            }
        }
        for (int i = 0; i < connections; i++) {
            Node n = new Node();
            n.times[connect][0] = each[i][0];
            n.times[connect][1] = each[i][1];
            n.times[close][0] = each[i][2];
            n.times[close][1] = each[i][3];
            apiNodes.add(n);
        }
    }

    /** cmtime's show_perf, with the issue column after its four. */
    private String table() {
        StringBuilder out = new StringBuilder();
        out.append("step              total ms     max ms     min us  us / conn  issue us/conn\n");
        for (Step step : Step.values()) {
            int k = step.ordinal();
            double max = 0;
            double min = Double.MAX_VALUE;
            List<Node> timed = k >= Step.API_CONNECT.ordinal() ? apiNodes : List.of(nodes);
            for (Node n : timed) {
                if (n != null && n.times[k][0] != 0 && n.times[k][1] != 0) {
                    double us = (n.times[k][1] - n.times[k][0]) / 1e3;
                    max = Math.max(max, us);
                    min = Math.min(min, us);
                }
            }
            if (min == Double.MAX_VALUE) {
                min = 0;
            }
            double us = (times[k][1] - times[k][0]) / 1e3;
            out.append(String.format(Locale.ROOT, "%-13s: %11.2f%11.2f%11.2f%11.2f%15.2f%n", step.label, us / 1000,
                    max / 1000, min, us / connections, issue[k] / 1e3 / connections));
        }
        return out.toString();
    }
}
