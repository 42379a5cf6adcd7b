package io.rdmaverbs.spring.boot.messaging;

/**
 * Told of every {@link RdmaMessageMapping} call once it is over, on the thread that ended it: what the test
 * module's {@code RdmaEndpointTestHarness} records, as Spring AMQP's {@code RabbitListenerTestHarness}
 * records listener calls. Every such bean of the context is told; it must not block.
 */
@FunctionalInterface
public interface EndpointInvocationListener {

    void invoked(EndpointInvocation invocation);
}
