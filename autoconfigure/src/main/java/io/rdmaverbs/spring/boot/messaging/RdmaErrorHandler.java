package io.rdmaverbs.spring.boot.messaging;

/**
 * Handles what an endpoint threw on a one-way message, which has nobody to answer (a request's failure is
 * its error reply): logged by default ({@link DefaultRdmaErrorHandler}), then handed to the application's
 * {@link RdmaMessageRecoverer} bean if it has one. Declare a bean of this type to replace it, as Spring
 * for Apache Kafka's {@code CommonErrorHandler}. Runs on the thread the endpoint ran on.
 */
@FunctionalInterface
public interface RdmaErrorHandler {

    void handle(RdmaFailedMessage failed);
}
