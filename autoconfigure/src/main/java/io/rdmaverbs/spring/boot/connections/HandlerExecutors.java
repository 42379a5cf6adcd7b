package io.rdmaverbs.spring.boot.connections;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The executor a listener's sessions run their handler on ({@code SessionSpec.handlerExecutor}): the
 * session's lane when the listener is {@code ordered} (one message of a connection at a time, in arrival
 * order), otherwise a virtual thread per message, at most {@code concurrency} of them at once over all the
 * listener's connections. Never blocks its caller, the completion loop that delivers: a message over the
 * bound waits in a queue for a thread to finish.
 */
final class HandlerExecutors {

    private HandlerExecutors() {
    }

    /** Null for the lane (the session's default), else virtual threads, bounded when {@code concurrency > 0}. */
    static @Nullable Executor of(String listener, ConnectionDeclarations.Listener declared) {
        if (declared.ordered()) {
            return null;
        }
        ThreadFactory threads = Thread.ofVirtual().name("rdma-listener-" + listener + "-", 0).factory();
        return declared.concurrency() == 0 ? task -> threads.newThread(task).start()
                : new Bounded(threads, declared.concurrency());
    }

    /** At most {@code limit} tasks at once, each on a thread of its own; the rest wait in arrival order. */
    static final class Bounded implements Executor {

        private static final Log logger = LogFactory.getLog(RdmaListener.class.getPackageName());

        private final ThreadFactory threads;
        private final int limit;
        private final ArrayDeque<Runnable> waiting = new ArrayDeque<>();
        private int running;

        Bounded(ThreadFactory threads, int limit) {
            this.threads = threads;
            this.limit = limit;
        }

        @Override
        public void execute(Runnable task) {
            synchronized (waiting) {
                if (running >= limit) {
                    waiting.add(task);
                    return;
                }
                running++;
            }
            threads.newThread(() -> runFrom(task)).start();
        }

        /** Runs {@code first}, then what waits, until nothing does. */
        private void runFrom(Runnable first) {
            Runnable next = first;
            while (next != null) {
                try {
                    next.run();
                } catch (RuntimeException | Error e) {
                    logger.warn("An RDMA message handler task failed", e);
                }
                synchronized (waiting) {
                    next = waiting.poll();
                    if (next == null) {
                        running--;
                    }
                }
            }
        }

        /** Tasks running now, for tests. */
        int running() {
            synchronized (waiting) {
                return running;
            }
        }
    }
}
