package io.rdmaverbs.benchmarks.connection;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.rdmaverbs.verbs.CompletionQueue;
import io.rdmaverbs.verbs.QueuePair;
import io.rdmaverbs.verbs.ReceiveRequest;
import io.rdmaverbs.verbs.SendRequest;
import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.attr.SendFlag;
import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.attr.WcOpcode;
import io.rdmaverbs.verbs.attr.WcStatus;
import io.rdmaverbs.verbs.attr.WorkCompletions;
import io.rdmaverbs.verbs.connection.ConnectSpec;
import io.rdmaverbs.verbs.connection.Connection;
import io.rdmaverbs.verbs.connection.ConnectionListener;
import io.rdmaverbs.verbs.connection.ConnectionSpec;
import io.rdmaverbs.verbs.connection.ConnectionState;
import io.rdmaverbs.verbs.connection.Connections;
import io.rdmaverbs.verbs.connection.ListenSpec;

/**
 * A send/receive round trip over one RC connection made with {@link Connections}, with exactly the
 * pattern of {@code src/main/c/cm_pingpong.c}: the client posts a signaled SEND of {@code SIZE} bytes,
 * polls the CQ (yielding the CPU on an empty poll) until its completion and the RECV of the reply are in, and posts the receive again;
 * the server polls for the RECV, posts the receive again, sends the reply and polls for its completion.
 * One receive posted before the handshake, a QP one WR deep each way ({@link ConnectionSpec#rc(int, int)}
 * with depth 1), one CQ; the send and receive requests are built once and posted again each round, as a
 * data path does. {@code post_us} is the time inside {@code postSend} and {@code postReceive}.
 *
 * <pre>
 * usage: PingPong server|client ADDRESS PORT SIZE COUNT WARMUP
 *        PingPong simulated SIZE COUNT WARMUP      both in this JVM, two simulated hosts: a smoke run
 * </pre>
 * The client prints {@code cm_pingpong}'s line:
 * {@code pingpong size S count N mean_us M median_us M p99_us M min_us M post_us M}.
 */
public final class PingPong {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final Duration STALL = Duration.ofSeconds(20);

    private final Connection connection;
    private final QueuePair qp;
    private final CompletionQueue cq;
    private final SendRequest send;
    private final ReceiveRequest recv;
    private final WorkCompletions completions;
    /** Completions polled but not yet waited for: one wait may find the next one's completion first. */
    private int sends;
    private int recvs;

    private PingPong(Connection connection, int size) {
        this.connection = connection;
        this.qp = connection.queuePair();
        this.cq = connection.completionQueue();
        var buffers = connection.buffers();
        this.send = qp.newSendRequest(1).wrId(1).opcode(SendOpcode.SEND).flags(SendFlag.SIGNALED)
                .single(buffers.region(), buffers.sendOffset(0), size);
        this.recv = qp.newReceiveRequest(1).wrId(0).single(buffers.region(), buffers.receiveOffset(0), size);
        this.completions = cq.newWorkCompletions(2);
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 6 && (args[0].equals("server") || args[0].equals("client"))) {
            InetSocketAddress address = Hosts.address(args[1], Integer.parseInt(args[2]));
            int size = Integer.parseInt(args[3]);
            int count = Integer.parseInt(args[4]);
            int warmup = Integer.parseInt(args[5]);
            try (Verbs verbs = Hosts.nativeVerbs()) {
                if (args[0].equals("server")) {
                    serve(verbs, address, size, warmup + count, new CompletableFuture<>());
                } else {
                    System.out.println(client(verbs, address, size, count, warmup));
                }
            }
        } else if (args.length == 4 && args[0].equals("simulated")) {
            int size = Integer.parseInt(args[1]);
            int count = Integer.parseInt(args[2]);
            int warmup = Integer.parseInt(args[3]);
            try (Hosts.SimulatedPair pair = Hosts.SimulatedPair.create()) {
                InetSocketAddress address = new InetSocketAddress(pair.serverAddress(), 7472);
                CompletableFuture<Void> listening = new CompletableFuture<>();
                CompletableFuture<Void> served = CompletableFuture.runAsync(
                        () -> serve(pair.server(), address, size, warmup + count, listening),
                        Executors.newSingleThreadExecutor(Thread.ofPlatform().daemon().factory()));
                listening.get(30, TimeUnit.SECONDS);
                System.out.println(client(pair.client(), address, size, count, warmup));
                served.get(30, TimeUnit.SECONDS);
            }
        } else {
            System.err.println("usage: PingPong server|client ADDRESS PORT SIZE COUNT WARMUP | "
                    + "PingPong simulated SIZE COUNT WARMUP");
            System.exit(2);
        }
    }

    private static ConnectionSpec spec(int size) {
        return ConnectionSpec.rc(1, size);
    }

    static void serve(Verbs verbs, InetSocketAddress address, int size, int rounds,
            CompletableFuture<Void> listening) {
        CompletableFuture<Connection> accepted = new CompletableFuture<>();
        try (Connections cm = Connections.on(verbs, "pingpong-server");
                ConnectionListener listener = cm.listen(ListenSpec.on(address).raw().backlog(1).connection(spec(size)),
                        request -> accepted.complete(request.accept()))) {
            System.out.println("listening on " + listener.address());
            listening.complete(null);
            Connection c = accepted.join();
            if (!c.awaitState(ConnectionState.CONNECTED, WAIT)) {
                throw new IllegalStateException(c + " was not established within " + WAIT);
            }
            PingPong p = new PingPong(c, size);
            for (int i = 0; i < rounds; i++) {
                p.await(0, 1);
                p.qp.postReceive(p.recv);
                p.qp.postSend(p.send);
                p.await(1, 0);
            }
            if (!c.awaitDisconnected(WAIT)) {
                throw new IllegalStateException("the client did not disconnect " + c + " within " + WAIT);
            }
            p.close();
        }
    }

    static String client(Verbs verbs, InetSocketAddress address, int size, int count, int warmup) {
        long[] rtt = new long[count];
        long posts = 0;
        try (Connections cm = Connections.on(verbs, "pingpong-client")) {
            Connection c = cm.connect(ConnectSpec.to(address).raw().connection(spec(size)));
            PingPong p = new PingPong(c, size);
            for (int i = 0; i < warmup + count; i++) {
                long t0 = System.nanoTime();
                p.qp.postSend(p.send);
                long t1 = System.nanoTime();
                p.await(1, 1);
                long t2 = System.nanoTime();
                p.qp.postReceive(p.recv);
                long t3 = System.nanoTime();
                if (i >= warmup) {
                    rtt[i - warmup] = t3 - t0;
                    posts += (t1 - t0) + (t3 - t2);
                }
            }
            p.close();
        }
        long sum = Arrays.stream(rtt).sum();
        Arrays.sort(rtt);
        return String.format(Locale.ROOT, "pingpong size %d count %d mean_us %.2f median_us %.2f p99_us %.2f "
                + "min_us %.2f post_us %.2f", size, count, sum / 1e3 / count, rtt[count / 2] / 1e3,
                rtt[count * 99 / 100] / 1e3, rtt[0] / 1e3, posts / 1e3 / count);
    }

    /**
     * Polls until {@code wantSends} send and {@code wantRecvs} receive completions are in, matched by opcode
     * (a completion that arrives ahead of its wait is kept for it); each must be a success. An empty poll yields the CPU
     * ({@code sched_yield}, as cm_pingpong.c), so that in a one-vCPU guest a waiting side never keeps
     * soft-RoCE's deferred packet work off the only CPU. Gives up after {@link #STALL}
     * without one (checked every 4096 empty polls, off the measured path), so a lost message ends the run.
     */
    private void await(int wantSends, int wantRecvs) {
        int empty = 0;
        long since = System.nanoTime();
        while (sends < wantSends || recvs < wantRecvs) {
            int n = cq.poll(completions);
            if (n == 0) {
                Thread.yield();
            }
            if (n == 0 && ++empty == 4096) {
                empty = 0;
                if (System.nanoTime() - since > STALL.toNanos()) {
                    throw new IllegalStateException("no completion on " + connection + " for " + STALL + " (sends "
                            + sends + " of " + wantSends + ", receives " + recvs + " of " + wantRecvs + " in)");
                }
            }
            for (int i = 0; i < n; i++) {
                if (completions.status(i) != WcStatus.SUCCESS) {
                    throw new IllegalStateException("completion " + completions.status(i) + " on " + connection);
                }
                if (completions.opcode(i) == WcOpcode.RECV) {
                    recvs++;
                } else {
                    sends++;
                }
            }
        }
        sends -= wantSends;
        recvs -= wantRecvs;
    }

    /** Frees the requests and completions, then closes the connection (disconnect, wait, release). */
    private void close() {
        send.close();
        recv.close();
        completions.close();
        connection.close();
    }
}
