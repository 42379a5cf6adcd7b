package io.rdmaverbs.verbs.provider;

import org.jspecify.annotations.Nullable;

/**
 * A context's asynchronous events: {@code ibv_get_async_event(3)} and {@code ibv_ack_async_event(3)}.
 * Failures and handle checks as described on {@link VerbsProvider}.
 */
public interface AsyncEventVerbs {

    /**
     * Waits up to {@code timeoutMillis} for an async event of the context ({@code poll(2)} on its
     * {@code async_fd}, then {@code ibv_get_async_event}, copied and {@code ibv_ack_async_event}ed).
     *
     * @return the event, or {@code null} on timeout
     */
    @Nullable AsyncEventRecord getAsyncEvent(ContextHandle context, long timeoutMillis);

    /**
     * Wakes the threads waiting in {@link #getAsyncEvent} on the context: each returns {@code null}
     * promptly, as on a timeout (an event already there may be returned instead). Like an
     * {@code eventfd(2)}, a wake that finds no waiter is kept and ends the next wait, and only that
     * one (however many wakes came). Safe from any thread, and never blocks. Not a verb: nothing of
     * libibverbs is touched.
     *
     * <p>A no-op on a closed context (so it may race with {@link DeviceVerbs#closeDevice}); a handle
     * this provider did not create is still rejected with {@link IllegalArgumentException}.
     */
    void wakeAsyncEventWaiters(ContextHandle context);
}
