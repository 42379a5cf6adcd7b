package io.rdmaverbs.verbs.provider.simulated;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.Condition;

import io.rdmaverbs.verbs.provider.CmChannelHandle;

/**
 * A CM event channel: the kernel's {@code ucma_file} with its ids and its queue of events. An event
 * becomes visible at its due time (a resolution that times out is due when its timeout ends), so
 * timeouts need no timer thread. Guarded by the {@link SimulatedNetwork}'s lock.
 */
final class SimCmChannel extends SimCmObject implements CmChannelHandle {

    private final int fd;
    final Set<SimCmId> ids = new LinkedHashSet<>();
    /** Queued, not yet returned; in due order. */
    final List<SimCmEvent> queued = new ArrayList<>();
    /** Returned by {@code getEvent} and not yet acknowledged. */
    final List<SimCmEvent> held = new ArrayList<>();
    final Condition eventArrived;
    /** A wake not yet seen by a waiter, like the counter of the native wake eventfd. */
    boolean wakePending;

    SimCmChannel(SimulatedProvider provider, long serial, int fd, Condition eventArrived) {
        super(provider, serial);
        this.fd = fd;
        this.eventArrived = eventArrived;
    }

    /** Queues an event, keeping due order (equal due times keep their order of arrival). */
    void enqueue(SimCmEvent event) {
        int i = queued.size();
        while (i > 0 && queued.get(i - 1).dueNanos - event.dueNanos > 0) {
            i--;
        }
        queued.add(i, event);
        eventArrived.signalAll();
    }

    @Override
    public int fd() {
        return fd;
    }

    @Override
    public String describe() {
        return "sim:rdma_event_channel#" + serial + " (fd " + fd + ")";
    }
}
