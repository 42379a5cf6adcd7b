package io.rdmaverbs.spring.boot.messaging;

/**
 * Takes the one-way messages an endpoint failed on, after the {@link DefaultRdmaErrorHandler} logged them:
 * to store them, send them elsewhere (a dead-letter peer), count them; as Spring for Apache Kafka's
 * {@code ConsumerRecordRecoverer}. One bean of this type is used.
 */
@FunctionalInterface
public interface RdmaMessageRecoverer {

    void recover(RdmaFailedMessage failed) throws Exception;
}
