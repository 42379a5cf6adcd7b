package io.rdmaverbs.verbs.connection;

import java.lang.System.Logger.Level;
import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Runs one connection's tasks (its handler, its state callbacks, its connect steps) one at a time and in
 * order, on a shared pool: a slow task holds up its own connection only.
 */
final class Lane implements Executor {

    private static final System.Logger LOG = System.getLogger(Lane.class.getName());

    private final Executor pool;
    private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
    private boolean running;

    Lane(Executor pool) {
        this.pool = pool;
    }

    @Override
    public void execute(Runnable task) {
        synchronized (tasks) {
            tasks.add(task);
            if (running) {
                return;
            }
            running = true;
        }
        try {
            pool.execute(this::drain);
        } catch (RejectedExecutionException shutDown) {
            synchronized (tasks) {
                tasks.clear();
                running = false;
            }
        }
    }

    private void drain() {
        for (;;) {
            Runnable next;
            synchronized (tasks) {
                next = tasks.poll();
                if (next == null) {
                    running = false;
                    return;
                }
            }
            try {
                next.run();
            } catch (RuntimeException | Error e) {
                LOG.log(Level.WARNING, "a connection task failed; the connection's next tasks still run", e);
            }
        }
    }
}
