package io.rdmaverbs.spring.boot.events;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.rdmaverbs.spring.boot.teardown.VerbsTeardown;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.ResourceClosedException;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.VerbsListener;
import io.rdmaverbs.verbs.VerbsResource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.SmartLifecycle;

/**
 * One thread per open device context, named {@code rdma-verbs-async-<device>}, reading its async
 * events; the graph hands each event to its listeners (the application-event bridge among them). A
 * context opened while running gets its reader at once.
 *
 * <p>The readers are platform threads: a virtual thread waiting in a native call pins its carrier, and
 * a few idle readers could then starve every other virtual thread of the application. They stop in the
 * phase just above the teardown, so no event is read while resources are being released. A stop wakes
 * every reader ({@link DeviceContext#wakeAsyncEventWaiters()}), so it returns as soon as the readers
 * left their waits, not after a wait's timeout.
 */
public final class AsyncEventReaders implements SmartLifecycle, VerbsListener {

    /** Stops just before the teardown. */
    public static final int PHASE = VerbsTeardown.PHASE + 1;
    /** How long one wait lasts; a stop does not wait for it (it wakes the readers), so it can be long. */
    static final Duration WAIT = Duration.ofSeconds(1);
    /** The pause after a failed read, before the next. */
    private static final Duration RETRY = Duration.ofMillis(100);
    /** Between two wakes of a reader that has not left yet (it may have begun its wait after a wake). */
    private static final Duration REWAKE = Duration.ofMillis(20);
    private static final Duration JOIN = Duration.ofSeconds(2);
    private static final Log logger = LogFactory.getLog(AsyncEventReaders.class);

    private final Set<DeviceContext> contexts = ConcurrentHashMap.newKeySet();
    private final Map<DeviceContext, Thread> readers = new ConcurrentHashMap<>();
    private final Duration wait;
    private volatile boolean running;

    public AsyncEventReaders() {
        this(WAIT);
    }

    /** With waits of {@code wait} each (tests make them long, to see that a stop does not wait for them). */
    public AsyncEventReaders(Duration wait) {
        this.wait = wait;
    }

    @Override
    public void created(VerbsResource resource) {
        if (resource instanceof DeviceContext context) {
            contexts.add(context);
            if (running) {
                startReader(context);
            }
        }
    }

    @Override
    public void closed(VerbsResource resource) {
        if (resource instanceof DeviceContext context) {
            contexts.remove(context);
        }
    }

    @Override
    public synchronized void start() {
        running = true;
        contexts.forEach(this::startReader);
    }

    @Override
    public synchronized void stop() {
        running = false;
        long deadline = System.nanoTime() + JOIN.toNanos();
        for (Map.Entry<DeviceContext, Thread> reader : readers.entrySet()) {
            try {
                // A reader that checked running just before it was cleared begins a wait after the first
                // wake, which was not for it: wake again until it is gone.
                while (reader.getValue().isAlive() && System.nanoTime() < deadline) {
                    reader.getKey().wakeAsyncEventWaiters();
                    reader.getValue().join(Duration.ofNanos(Math.max(1,
                            Math.min(REWAKE.toNanos(), deadline - System.nanoTime()))));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        readers.values().removeIf(t -> !t.isAlive());
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    /** The number of reader threads alive now. */
    public int activeReaders() {
        return (int) readers.values().stream().filter(Thread::isAlive).count();
    }

    private void startReader(DeviceContext context) {
        readers.computeIfAbsent(context, c -> Thread.ofPlatform()
                .daemon()
                .name("rdma-verbs-async-" + c.device().name())
                .start(() -> read(c)));
    }

    private void read(DeviceContext context) {
        try {
            while (running && context.isOpen()) {
                try {
                    context.awaitAsyncEvent(wait);
                } catch (VerbsException e) {
                    if (Errno.EIO.equals(e.errno())) {
                        // The device is gone (after DEVICE_FATAL): nothing more will come until it is reopened.
                        logger.warn("RDMA verbs: stopped reading async events of " + context.ref() + ": "
                                + e.getMessage());
                        return;
                    }
                    logger.warn("RDMA verbs: reading async events of " + context.ref() + " failed: " + e.getMessage());
                    Thread.sleep(RETRY);
                }
            }
        } catch (ResourceClosedException e) {
            // The context is closing: nothing more to read.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            readers.remove(context, Thread.currentThread());
        }
    }
}
