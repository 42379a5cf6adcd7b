package io.rdmaverbs.benchmarks.connection;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.rdmaverbs.verbs.MemoryRegion;
import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.connection.ConnectSpec;
import io.rdmaverbs.verbs.connection.Connection;
import io.rdmaverbs.verbs.connection.ConnectionSpec;
import io.rdmaverbs.verbs.connection.Connections;
import io.rdmaverbs.verbs.connection.Message;
import io.rdmaverbs.verbs.connection.Session;
import io.rdmaverbs.verbs.connection.SessionSpec;
import io.rdmaverbs.verbs.connection.SessionStatistics;

/**
 * The data plane of a connection through the public {@link Session} API, the Java side of perftest's
 * {@code ib_send_bw} and {@code ib_send_lat} (or of their twin {@code src/main/c/cm_perf.c}): one RC
 * connection of {@link #connectionSpec()}, then each case in turn.
 * <ul>
 * <li>{@code send:SIZE:SOURCE:COUNT:WARMUP}: one-way messages of SIZE bytes, WINDOW in flight (the next
 *     send waits for the future of the one WINDOW before it), the server's handler counting them. SOURCE
 *     {@code registered}: the payload is a region registered on the connection (zero copy: the SEND gathers
 *     it, or the peer reads it by rendezvous); {@code heap}: a {@code byte[]} (copied once, into a send slot
 *     or a region registered for the transfer). One {@link Message} is made and sent again and again, as
 *     perftest sends from one buffer. Prints messages/s and MiB/s from the first send to the last future.</li>
 * <li>{@code request:SIZE:COUNT:WARMUP}: request/reply round trips one at a time from a registered slice,
 *     the server replying with as many bytes from its own region; mean, median, p99, min.</li>
 * <li>{@code warmup:SIZE:SOURCE:COUNT}: sends as {@code send} does, untimed, before the cases: the guest's
 *     C1 compiles a path after about 200 calls.</li>
 * <li>{@code register:SIZE:COUNT}: what a rendezvous pays per message besides the wire, on each side that
 *     copies or receives: a region of SIZE allocated, registered and closed, timed.</li>
 * </ul>
 * Each timed loop is bracketed by a {@code bench: mark} request, whose reply is the server's CPU,
 * allocation, context switches and rxe packet counters since the previous mark per message it handled; the
 * client prints its own ({@link ThreadUse.Interval}) beside it. WARMUP untimed messages come first.
 *
 * <pre>
 * usage: SessionBench server ADDRESS PORT               serves one connection, then exits
 *        SessionBench client ADDRESS PORT WINDOW CASE...
 *        SessionBench simulated WINDOW CASE...          both in this JVM, two simulated hosts: a smoke run
 * </pre>
 * Prints per case one line: {@code session send size S source R count N window W waits X seconds T
 * msgs_per_s M MiB_per_s B client_... server_...}, or {@code session request size S count N mean_us M
 * median_us M p99_us M min_us M client_... server_...}.
 */
public final class SessionBench {

    /** Send and receive queues of 128, as perftest's default {@code tx_depth}. */
    static final int QUEUE_DEPTH = 128;
    /** Receive buffers and send slots of 8 KiB: up to 4 KiB goes eagerly, 64 KiB and up by rendezvous. */
    static final int BUFFER_SIZE = 8 << 10;
    static final long MAX_MESSAGE = 64L << 20;
    /** READs and atomics in flight each way: the device's maximum. */
    static final int READS = 255;
    private static final Duration MARK_WAIT = Duration.ofMinutes(2);
    /**
     * Each resolution's, and half the handshake's: in an emulated guest the server's accept (a 2 MiB region
     * registered, 128 receives posted, by a JVM still interpreting) takes longer than the default's 4 s.
     */
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(15);

    private final Session session;
    private final Connection connection;
    private final int window;
    /** The connection's device, whose rxe counters each case reads. */
    private final String device;

    private SessionBench(Connection connection, int window) {
        this.connection = connection;
        this.session = connection.session();
        this.window = window;
        this.device = SessionBenchServer.deviceOf(connection);
    }

    /**
     * Queues of {@link #QUEUE_DEPTH}, buffers of {@link #BUFFER_SIZE}, and as many RDMA READs in flight each
     * way as the device allows (255: librdmacm's "the device's maximum", rdma_connect(3)), as perftest's
     * read test asks for its {@code out_reads}; the session's default is 4. 6 retries, infinite RNR retry.
     */
    static ConnectionSpec connectionSpec() {
        return ConnectionSpec.rc(QUEUE_DEPTH, BUFFER_SIZE).withHandshake(READS, READS, 6, 7);
    }

    public static void main(String[] args) throws Exception {
        Thread.currentThread().setName(ThreadUse.CALLER_PREFIX + "-main");
        if (args.length == 3 && args[0].equals("server")) {
            try (Verbs verbs = Hosts.nativeVerbs()) {
                new SessionBenchServer().serve(verbs, Hosts.address(args[1], Integer.parseInt(args[2])),
                        new CompletableFuture<>());
            }
        } else if (args.length >= 5 && args[0].equals("client")) {
            InetSocketAddress address = Hosts.address(args[1], Integer.parseInt(args[2]));
            try (Verbs verbs = Hosts.nativeVerbs()) {
                client(verbs, address, Integer.parseInt(args[3]), Arrays.copyOfRange(args, 4, args.length));
            }
        } else if (args.length >= 3 && args[0].equals("simulated")) {
            try (Hosts.SimulatedPair pair = Hosts.SimulatedPair.create()) {
                InetSocketAddress address = new InetSocketAddress(pair.serverAddress(), 7474);
                CompletableFuture<Void> listening = new CompletableFuture<>();
                CompletableFuture<Void> served = CompletableFuture.runAsync(() -> {
                    try {
                        new SessionBenchServer().serve(pair.server(), address, listening);
                    } catch (Exception e) {
                        listening.completeExceptionally(e);
                        throw new IllegalStateException(e);
                    }
                }, Executors.newSingleThreadExecutor(Thread.ofPlatform().daemon().name("sessbench-server").factory()));
                listening.get(30, TimeUnit.SECONDS);
                client(pair.client(), address, Integer.parseInt(args[1]), Arrays.copyOfRange(args, 2, args.length));
                served.get(60, TimeUnit.SECONDS);
            }
        } else {
            System.err.println("usage: SessionBench server ADDRESS PORT | SessionBench client ADDRESS PORT WINDOW CASE... | "
                    + "SessionBench simulated WINDOW CASE...   (CASE: send:SIZE:registered|heap:COUNT:WARMUP, "
                    + "request:SIZE:COUNT:WARMUP, warmup:SIZE:registered|heap:COUNT, register:SIZE:COUNT)");
            System.exit(2);
        }
    }

    static void client(Verbs verbs, InetSocketAddress address, int window, String[] cases) {
        List<Runnable> runs = new ArrayList<>();
        try (Connections cm = Connections.on(verbs, "sessbench-client")) {
            Connection c = cm.connect(ConnectSpec.to(address).timeout(CONNECT_TIMEOUT).connection(connectionSpec())
                    .session(SessionSpec.defaults().maxMessageSize(MAX_MESSAGE)));
            SessionBench bench = new SessionBench(c, window);
            for (String spec : cases) {
                runs.add(bench.parse(spec));
            }
            System.out.println("connected to " + c.peerAddress() + "; eager limit " + c.session().eagerLimit() + " B");
            runs.forEach(Runnable::run);
            SessionStatistics st = c.session().statistics();
            System.out.println("client statistics: " + st + ", requests " + st.requestsSent() + ", replies "
                    + st.repliesReceived() + ", large sent " + st.largeMessagesSent());
            c.close(Duration.ofSeconds(10));
        }
    }

    private Runnable parse(String spec) {
        String[] f = spec.split(":");
        try {
            if (f.length == 5 && f[0].equals("send") && (f[2].equals("registered") || f[2].equals("heap"))) {
                int size = Integer.parseInt(f[1]);
                int count = Integer.parseInt(f[3]);
                int warmup = Integer.parseInt(f[4]);
                boolean registered = f[2].equals("registered");
                return () -> System.out.println(throughput(size, registered, count, warmup));
            }
            if (f.length == 4 && f[0].equals("warmup") && (f[2].equals("registered") || f[2].equals("heap"))) {
                int size = Integer.parseInt(f[1]);
                int count = Integer.parseInt(f[3]);
                boolean registered = f[2].equals("registered");
                return () -> System.out.println(warmup(size, registered, count));
            }
            if (f.length == 3 && f[0].equals("register")) {
                int size = Integer.parseInt(f[1]);
                int count = Integer.parseInt(f[2]);
                return () -> System.out.println(registration(size, count));
            }
            if (f.length == 4 && f[0].equals("request")) {
                int size = Integer.parseInt(f[1]);
                int count = Integer.parseInt(f[2]);
                int warmup = Integer.parseInt(f[3]);
                return () -> System.out.println(latency(size, count, warmup));
            }
        } catch (NumberFormatException e) {
            // the usage below says what is expected
        }
        throw new IllegalArgumentException("not a case: " + spec + " (send:SIZE:registered|heap:COUNT:WARMUP, "
                + "request:SIZE:COUNT:WARMUP, warmup:SIZE:registered|heap:COUNT or register:SIZE:COUNT)");
    }

    // ---- one-way messages -----------------------------------------------------------------------------

    private String throughput(int size, boolean registered, int count, int warmup) {
        try (MemoryRegion region = registered ? registeredPayload(size) : null) {
            Message message = region != null ? Message.of(region.segment().asSlice(0, size)) : Message.of(filled(size));
            CompletableFuture<?>[] inFlight = new CompletableFuture<?>[window];
            send(message, inFlight, warmup);
            mark();
            ThreadUse.Interval interval = ThreadUse.Interval.start(device);
            long t0 = System.nanoTime();
            long waits = send(message, inFlight, count);
            long t1 = System.nanoTime();
            String client = interval.perMessage("client", count);
            String server = mark();
            double seconds = (t1 - t0) / 1e9;
            return String.format(Locale.ROOT, "session send size %d source %s count %d window %d waits %d seconds %.3f "
                    + "msgs_per_s %.1f MiB_per_s %.3f %s %s", size, registered ? "registered" : "heap", count, window,
                    waits, seconds, count / seconds, (double) size * count / seconds / (1 << 20), client, server);
        }
    }

    /**
     * Sends without measuring, so that the guest's C1 compiles the paths the cases take (it compiles a
     * method after about 200 calls: a case's own warm-up of a few hundred large messages would leave the
     * rendezvous path to be compiled while it is timed).
     */
    private String warmup(int size, boolean registered, int count) {
        try (MemoryRegion region = registered ? registeredPayload(size) : null) {
            Message message = region != null ? Message.of(region.segment().asSlice(0, size)) : Message.of(filled(size));
            long t0 = System.nanoTime();
            send(message, new CompletableFuture<?>[window], count);
            return String.format(Locale.ROOT, "session warmup size %d source %s count %d seconds %.3f", size,
                    registered ? "registered" : "heap", count, (System.nanoTime() - t0) / 1e9);
        }
    }

    private MemoryRegion registeredPayload(int size) {
        MemoryRegion region = connection.allocateMemory(size, EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ));
        region.segment().fill((byte) 1);
        return region;
    }

    private static byte[] filled(int size) {
        byte[] payload = new byte[size];
        Arrays.fill(payload, (byte) 1);
        return payload;
    }

    /**
     * Sends {@code message} {@code count} times, at most {@link #window} in flight: the next send waits for
     * the future of the one {@code window} before it; then waits for all. Every send is of the same payload
     * (perftest's sends all come from one buffer too), which none of them changes. Returns how many of the
     * waits blocked.
     */
    private long send(Message message, CompletableFuture<?>[] inFlight, int count) {
        long waits = 0;
        for (int i = 0; i < count; i++) {
            int slot = i % window;
            CompletableFuture<?> f = inFlight[slot];
            if (f != null) {
                if (!f.isDone()) {
                    waits++;
                }
                f.join();
            }
            inFlight[slot] = session.send(message);
        }
        for (int i = 0; i < window; i++) {
            if (inFlight[i] != null) {
                inFlight[i].join();
                inFlight[i] = null;
            }
        }
        return waits;
    }

    // ---- request and reply ----------------------------------------------------------------------------

    private String latency(int size, int count, int warmup) {
        try (MemoryRegion region = connection.allocateMemory(size, EnumSet.of(AccessFlag.LOCAL_WRITE,
                AccessFlag.REMOTE_READ))) {
            Message request = Message.of(region.segment().asSlice(0, size).fill((byte) 7));
            long[] rtt = new long[count];
            for (int i = 0; i < warmup; i++) {
                session.request(request).join();
            }
            mark();
            ThreadUse.Interval interval = ThreadUse.Interval.start(device);
            for (int i = 0; i < count; i++) {
                long t0 = System.nanoTime();
                Message reply = session.request(request).join();
                rtt[i] = System.nanoTime() - t0;
                if (reply.length() != size) {
                    throw new IllegalStateException("a reply of " + reply.length() + " bytes to a request of " + size);
                }
            }
            String client = interval.perMessage("client", count);
            String server = mark();
            long sum = Arrays.stream(rtt).sum();
            Arrays.sort(rtt);
            return String.format(Locale.ROOT, "session request size %d count %d mean_us %.2f median_us %.2f p99_us %.2f "
                    + "min_us %.2f %s %s", size, count, sum / 1e3 / count, rtt[count / 2] / 1e3,
                    rtt[count * 99 / 100] / 1e3, rtt[0] / 1e3, client, server);
        }
    }

    // ---- what a rendezvous registers per message ------------------------------------------------------

    /**
     * The region a large message costs per transfer, as the session makes it: allocated (zeroed) and
     * registered in the connection's PD, then closed (deregistered, freed), COUNT times; mean and median of
     * each half.
     */
    private String registration(int size, int count) {
        long[] made = new long[count];
        long[] closed = new long[count];
        var access = EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ);
        for (int i = 0; i < count; i++) {
            long t0 = System.nanoTime();
            MemoryRegion r = connection.protectionDomain().allocateMemory(size, access, "sessbench/register");
            long t1 = System.nanoTime();
            r.close();
            made[i] = t1 - t0;
            closed[i] = System.nanoTime() - t1;
        }
        long madeSum = Arrays.stream(made).sum();
        long closedSum = Arrays.stream(closed).sum();
        Arrays.sort(made);
        Arrays.sort(closed);
        return String.format(Locale.ROOT, "session register size %d count %d allocate_mean_us %.2f allocate_median_us %.2f "
                + "close_mean_us %.2f close_median_us %.2f", size, count, madeSum / 1e3 / count, made[count / 2] / 1e3,
                closedSum / 1e3 / count, closed[count / 2] / 1e3);
    }

    /** The server's figures since its previous mark; this call starts its next interval. */
    private String mark() {
        return session.requestAndWait(Message.empty().withHeader(SessionBenchServer.MARK_HEADER, SessionBenchServer.MARK),
                MARK_WAIT).asString();
    }
}
