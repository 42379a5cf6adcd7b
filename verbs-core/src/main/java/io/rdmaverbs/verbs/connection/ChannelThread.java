package io.rdmaverbs.verbs.connection;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;

import io.rdmaverbs.verbs.ResourceClosedException;

/**
 * The platform thread that reads one channel ({@link EventLoop}'s CM event channel, a completion loop's
 * completion channel): it waits for the next event a slice at a time, hands it on, and ends when
 * {@link #stop} wakes it or when the channel closes under it. A failure to read is logged and the thread
 * goes on: the channel is the only thing it serves.
 *
 * @param <E> what the channel delivers
 */
final class ChannelThread<E> {

    private static final System.Logger LOG = System.getLogger(ChannelThread.class.getName());
    /** How long one wait lasts before the thread looks whether it is stopping (a wake ends it earlier). */
    private static final Duration WAIT = Duration.ofMillis(500);

    private final String channel;
    private final Function<Duration, Optional<E>> await;
    private final Consumer<E> dispatch;
    private final Runnable wake;
    private final Thread thread;
    private volatile boolean stopping;

    /**
     * @param name the thread's name
     * @param channel the channel, as the log names it
     * @param await the channel's wait for one event, up to the duration given
     * @param dispatch what is done with each event, on this thread
     * @param wake makes a wait in {@code await} return early
     */
    ChannelThread(String name, String channel, Function<Duration, Optional<E>> await, Consumer<E> dispatch,
            Runnable wake) {
        this.channel = channel;
        this.await = await;
        this.dispatch = dispatch;
        this.wake = wake;
        this.thread = Thread.ofPlatform().daemon().name(name).unstarted(this::run);
    }

    void start() {
        thread.start();
    }

    boolean isThisThread() {
        return Thread.currentThread() == thread;
    }

    /** Stops the thread and waits up to {@code bound} for it to leave (not when called on it). */
    void stop(Duration bound) {
        stopping = true;
        wake.run();
        if (isThisThread()) {
            return;
        }
        try {
            thread.join(bound);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        while (!stopping) {
            Optional<E> next;
            try {
                next = await.apply(WAIT);
            } catch (ResourceClosedException closed) {
                return;
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, () -> "reading " + channel + " failed; the thread goes on", e);
                continue;
            }
            next.ifPresent(dispatch);
        }
    }
}
