package io.rdmaverbs.benchmarks.connection;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.rdmaverbs.verbs.CmEvent;
import io.rdmaverbs.verbs.CmEventChannel;
import io.rdmaverbs.verbs.CmId;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.ProtectionDomain;
import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.attr.CmConnectionParams;
import io.rdmaverbs.verbs.attr.CmEventType;
import io.rdmaverbs.verbs.attr.CmPortSpace;

/**
 * cmtime's server through the project's API: one thread reads the events; CONNECT_REQUESTs go to a
 * request thread (create the QP as cmtime does, {@code rdma_accept(3)}), DISCONNECTEDs to a disconnect
 * thread ({@code rdma_disconnect(3)}, {@code rdma_destroy_qp(3)}, {@code rdma_destroy_id(3)}). cmtime's
 * server never ends; this one ends once it answered {@code expected} disconnects.
 */
final class CmTimeServer {

    private static final Duration EVENT_SLICE = Duration.ofMillis(100);

    private final Verbs verbs;
    private final InetSocketAddress address;
    private final int expected;
    private final CountDownLatch listening = new CountDownLatch(1);
    private final Map<CmId, CmQueuePair> qps = new ConcurrentHashMap<>();
    private final Map<DeviceContext, ProtectionDomain> pds = new ConcurrentHashMap<>();
    private final AtomicInteger served = new AtomicInteger();
    /** Time in the request thread's create-QP-and-accept and the disconnect thread's release, ns. */
    private final AtomicLong accepting = new AtomicLong();
    private final AtomicLong creatingQps = new AtomicLong();
    private final AtomicLong releasing = new AtomicLong();

    CmTimeServer(Verbs verbs, InetSocketAddress address, int expected) {
        this.verbs = verbs;
        this.address = address;
        this.expected = expected;
    }

    void awaitListening() throws InterruptedException {
        listening.await();
    }

    void serve() {
        CmEventChannel channel = verbs.createCmEventChannel("cmtime-server/events");
        CmId listener = channel.createId(CmPortSpace.TCP, "cmtime-server/listen");
        listener.bind(address);
        listener.listen(0);
        System.out.println("listening on " + address);
        listening.countDown();
        try (ExecutorService requests = Executors.newSingleThreadExecutor();
                ExecutorService disconnects = Executors.newSingleThreadExecutor()) {
            while (served.get() < expected) {
                Optional<CmEvent> next = channel.awaitEvent(EVENT_SLICE);
                if (next.isEmpty()) {
                    continue;
                }
                CmEvent event = next.get();
                CmEventType type = event.type();
                CmId id = event.cmId();
                event.ack();
                if (type == CmEventType.CONNECT_REQUEST) {
                    requests.execute(() -> accept(id));
                } else if (type == CmEventType.DISCONNECTED) {
                    disconnects.execute(() -> release(id));
                }
            }
        }
        pds.values().forEach(ProtectionDomain::close);
        listener.close();
        channel.close();
        int n = Math.max(1, served.get());
        System.out.printf(Locale.ROOT, "served %d connections; per connection: accept %.2f us (of it create qp "
                + "%.2f us), release %.2f us%n", served.get(), accepting.get() / 1e3 / n, creatingQps.get() / 1e3 / n,
                releasing.get() / 1e3 / n);
    }

    private void accept(CmId id) {
        long start = System.nanoTime();
        try {
            CmQueuePair qp = CmQueuePair.create(id, pds.computeIfAbsent(CmQueuePair.contextOf(id),
                    ctx -> ctx.allocateProtectionDomain("cmtime-server/pd")));
            creatingQps.addAndGet(System.nanoTime() - start);
            qps.put(id, qp);
            id.accept(CmConnectionParams.defaults());
            accepting.addAndGet(System.nanoTime() - start);
        } catch (RuntimeException e) {
            System.out.println("failing connection request: " + e.getMessage());
            CmQueuePair qp = qps.remove(id);
            if (qp != null) {
                qp.close();
            }
            id.reject(new byte[0]);
            id.close();
        }
    }

    private void release(CmId id) {
        long start = System.nanoTime();
        try {
            id.disconnect();
        } catch (RuntimeException e) {
            // The client's DREQ was answered already; cmtime ignores rdma_disconnect's result too.
        }
        CmQueuePair qp = qps.remove(id);
        if (qp != null) {
            qp.close();
        }
        id.close();
        releasing.addAndGet(System.nanoTime() - start);
        served.incrementAndGet();
    }
}
