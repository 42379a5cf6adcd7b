package io.rdmaverbs.verbs.provider;

import io.rdmaverbs.verbs.attr.WorkCompletions;

import org.jspecify.annotations.Nullable;

/**
 * Completion channels and CQs: {@code ibv_create_comp_channel(3)}, {@code ibv_create_cq(3)},
 * {@code ibv_req_notify_cq(3)}, {@code ibv_poll_cq(3)}, {@code ibv_get_cq_event(3)}. Polling and arming
 * are on the data path: a caller that polls keeps this object rather than asking the provider per poll.
 * Failures and handle checks as described on {@link VerbsProvider}.
 */
public interface CompletionVerbs {

    /** {@code ibv_create_comp_channel}. */
    CompChannelHandle createCompChannel(ContextHandle context);

    /** {@code ibv_destroy_comp_channel}; EBUSY while a CQ is associated with it. */
    void destroyCompChannel(CompChannelHandle channel);

    /** {@code ibv_create_cq}; EINVAL for {@code cqe} above {@code max_cqe} or a bad {@code compVector}. */
    CqHandle createCq(ContextHandle context, int cqe, @Nullable CompChannelHandle channel, int compVector);

    /**
     * {@code ibv_create_cq_ex} (inline through {@code verbs_context}), reporting the fields of
     * {@code wcFlags} ({@link io.rdmaverbs.verbs.attr.CompletionField} bits); EOPNOTSUPP for a field the
     * device cannot report or a device without extended CQs. Destroyed by {@link #destroyCq}.
     */
    CqHandle createCqEx(ContextHandle context, int cqe, @Nullable CompChannelHandle channel, int compVector,
            long wcFlags);

    /**
     * The poller of a CQ {@link #createCqEx} made, the same object every time.
     *
     * @throws IllegalArgumentException for a CQ {@link #createCq} made
     */
    CqExPoller cqExPoller(CqHandle cq);

    /**
     * {@code ibv_destroy_cq}; EBUSY while QPs or SRQs use it. Blocks forever while events returned by
     * {@link #getCqEvent} are not acknowledged: callers must never call it then. May run while
     * {@link #pollCq} or {@link #reqNotifyCq} runs on the same CQ in other threads, or a
     * {@link CqExPoller} batch is open on it (the graph does not shut these out): the provider lets those
     * calls, and the batch up to its {@code endPoll}, finish before the CQ is freed and refuses later ones
     * with {@link IllegalStateException}; a destroy that fails leaves the CQ pollable. On the thread that
     * holds a batch of the CQ it is refused with {@link IllegalStateException}, changing nothing (it would
     * wait for that thread's own batch).
     */
    void destroyCq(CqHandle cq);

    /** {@code ibv_req_notify_cq} (inline: {@code cq->context->ops.req_notify_cq}). */
    void reqNotifyCq(CqHandle cq, boolean solicitedOnly);

    /**
     * {@code ibv_poll_cq} (inline: {@code cq->context->ops.poll_cq}) into entries {@code 0..max-1} of
     * {@code completions}. Allocates nothing.
     *
     * @return the number of completions written
     */
    int pollCq(CqHandle cq, WorkCompletions completions, int max);

    /** A completion buffer for {@link #pollCq} in this provider's format. */
    WorkCompletions newWorkCompletions(int capacity);

    /**
     * Waits up to {@code timeoutMillis} for a completion event on the channel ({@code poll(2)} on the
     * channel's descriptor, then {@code ibv_get_cq_event}).
     *
     * @return the CQ the event is for (its event must be acknowledged), or {@code null} on timeout
     */
    @Nullable CqHandle getCqEvent(CompChannelHandle channel, long timeoutMillis);

    /**
     * Wakes the threads waiting in {@link #getCqEvent} on the channel: each returns {@code null}
     * promptly, as on a timeout (an event already there may be returned instead). Like an
     * {@code eventfd(2)}, a wake that finds no waiter is kept and ends the next wait, and only that
     * one (however many wakes came). Safe from any thread, and never blocks. Not a verb: nothing of
     * libibverbs is touched.
     *
     * <p>A no-op on a destroyed channel (so it may race with {@link #destroyCompChannel}); a handle
     * this provider did not create is still rejected with {@link IllegalArgumentException}.
     */
    void wakeCqEventWaiters(CompChannelHandle channel);

    /** {@code ibv_ack_cq_events}. */
    void ackCqEvents(CqHandle cq, int count);
}
