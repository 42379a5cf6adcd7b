package io.rdmaverbs.spring.boot.test.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.rdmaverbs.spring.boot.messaging.EndpointInvocation;
import io.rdmaverbs.spring.boot.messaging.EndpointInvocationListener;

/**
 * Records every call of the application's {@code @RdmaMessageMapping} methods, so that a test can wait for
 * what an endpoint received and see what it returned or threw, as Spring AMQP's
 * {@code RabbitListenerTestHarness} does for {@code @RabbitListener}s. A bean of every test context with
 * {@link SimulatedConnections}; it records nothing in production, where it does not exist.
 */
public final class RdmaEndpointTestHarness implements EndpointInvocationListener {

    private final Map<String, LinkedBlockingQueue<EndpointInvocation>> next = new ConcurrentHashMap<>();
    private final List<EndpointInvocation> all = new CopyOnWriteArrayList<>();

    @Override
    public void invoked(EndpointInvocation invocation) {
        all.add(invocation);
        queue(invocation.listener(), invocation.route()).add(invocation);
    }

    /**
     * The next call of the endpoint of {@code listener} mapped to {@code route} ("" for messages without one)
     * not yet returned by this method, waiting at most {@code timeout} for it.
     *
     * @throws AssertionError when none comes in time, listing the calls so far
     */
    public EndpointInvocation awaitInvocation(String listener, String route, Duration timeout)
            throws InterruptedException {
        EndpointInvocation invocation = queue(listener, route).poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
        if (invocation == null) {
            throw new AssertionError("no call of the endpoint of listener '" + listener + "' route '" + route
                    + "' within " + timeout.toMillis() + " ms; calls so far: " + all.stream()
                            .map(i -> i.listener() + "/" + i.route()).toList());
        }
        return invocation;
    }

    /** Every call so far, in the order they ended. */
    public List<EndpointInvocation> invocations() {
        return List.copyOf(all);
    }

    /** Forgets every call: a test that shares a cached context starts from nothing. */
    public void reset() {
        all.clear();
        next.clear();
    }

    private LinkedBlockingQueue<EndpointInvocation> queue(String listener, String route) {
        return next.computeIfAbsent(listener + "/" + route, k -> new LinkedBlockingQueue<>());
    }
}
