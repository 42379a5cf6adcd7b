package io.rdmaverbs.verbs.provider.simulated;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

import io.rdmaverbs.verbs.attr.AsyncEventType;
import io.rdmaverbs.verbs.attr.PortState;
import io.rdmaverbs.verbs.attr.QpState;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.AsyncEventRecord;
import io.rdmaverbs.verbs.provider.AsyncEventVerbs;
import io.rdmaverbs.verbs.provider.ContextHandle;

import org.jspecify.annotations.Nullable;

/**
 * Async events: the queue {@code ibv_get_async_event} reads, and the simulation hooks that raise them
 * (a port changing state, a device's fatal error).
 */
final class SimAsyncEvents implements AsyncEventVerbs {

    private final SimUverbs uverbs;
    private final Fabric fabric;
    private final SimDeviceVerbs devices;

    SimAsyncEvents(SimUverbs uverbs, SimDeviceVerbs devices) {
        this.uverbs = uverbs;
        this.fabric = uverbs.fabric;
        this.devices = devices;
    }

    /**
     * Negative {@code timeoutMillis} waits without limit. After a fatal device error the queued events
     * (DEVICE_FATAL among them) are still returned; then EIO.
     */
    @Override
    public @Nullable AsyncEventRecord getAsyncEvent(ContextHandle context, long timeoutMillis) {
        SimContext ctx = uverbs.own(context, SimContext.class);
        uverbs.call("ibv_get_async_event", ctx);
        AsyncEventRecord event = ctx.asyncEvents.poll();
        if (event == SimContext.WAKE) {
            return woken(ctx);
        }
        if (event != null) {
            return event;
        }
        if (ctx.device.fatal) {
            throw new VerbsException("ibv_get_async_event", ctx.describe(), Errno.EIO, "device " + ctx.device.name()
                    + " had a fatal error and its event queue is drained");
        }
        try {
            event = timeoutMillis < 0 ? ctx.asyncEvents.take()
                    : ctx.asyncEvents.poll(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new VerbsException("ibv_get_async_event", ctx.describe(), Errno.EINTR,
                    "interrupted while waiting for an async event");
        }
        return event == SimContext.WAKE ? woken(ctx) : event;
    }

    /**
     * A waiter took the wake: it is seen, and the next wake queues a new one. Events queued after the
     * wake stay for the next call (queue order: unlike the native provider, where an event that is
     * already there when a waiter looks wins over a pending wake).
     */
    private static @Nullable AsyncEventRecord woken(SimContext ctx) {
        ctx.wakePending.set(false);
        return null;
    }

    @Override
    public void wakeAsyncEventWaiters(ContextHandle context) {
        SimContext ctx = uverbs.identify(context, SimContext.class);
        if (!ctx.isDestroyed() && ctx.wakePending.compareAndSet(false, true)) {
            ctx.asyncEvents.add(SimContext.WAKE);
        }
    }

    // ---- simulation hooks -------------------------------------------------------------------------

    void setPortState(String deviceName, int port, PortState state) {
        SimDevice d = devices.device(deviceName);
        Objects.requireNonNull(state, "state");
        if (!d.hasPort(port)) {
            throw new IllegalArgumentException(deviceName + " has no port " + port);
        }
        uverbs.onFabric(() -> {
            PortState old = d.portState(port);
            d.portState(port, state);
            if (old == PortState.ACTIVE && state != PortState.ACTIVE) {
                d.broadcast(new AsyncEventRecord(AsyncEventType.PORT_ERR, null, port));
            } else if (old != PortState.ACTIVE && state == PortState.ACTIVE) {
                d.broadcast(new AsyncEventRecord(AsyncEventType.PORT_ACTIVE, null, port));
            }
            fabric.pumpStalled();
        });
    }

    void injectDeviceFatal(String deviceName) {
        SimDevice d = devices.device(deviceName);
        uverbs.onFabric(() -> {
            if (d.fatal) {
                return;
            }
            d.fatal = true;
            d.broadcast(new AsyncEventRecord(AsyncEventType.DEVICE_FATAL, null, 0));
            for (KernelQp q : List.copyOf(d.qps.values())) {
                if (q.state != QpState.RESET && q.state != QpState.ERR) {
                    fabric.moveToError(q);
                }
            }
            for (SimContext ctx : d.contexts) {
                for (SimHandle child : ctx.children()) {
                    if (child instanceof SimCompChannel ch) {
                        ch.eventArrived.signalAll();
                    } else if (child instanceof SimCq cq) {
                        cq.acked.signalAll();
                    }
                }
            }
            fabric.pumpStalled();
        });
    }
}
