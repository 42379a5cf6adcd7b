package io.rdmaverbs.spring.boot.autoconfigure.messaging;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Messaging on the connections declared under {@code rdma.verbs.connections}: annotated endpoints, the
 * template and their converters. A request's default timeout is each peer's {@code request-timeout}; how
 * many messages a listener handles at once, and in which order, its {@code concurrency} and
 * {@code ordered}.
 *
 * @param enabled Whether to create the template and serve @RdmaEndpoint beans.
 * @param json Whether messages may carry JSON payloads, converted with the application's Jackson JsonMapper
 *     (when Jackson 3 is on the class path).
 */
@ConfigurationProperties(RdmaMessagingProperties.PREFIX)
public record RdmaMessagingProperties(@DefaultValue("true") boolean enabled, @DefaultValue("true") boolean json) {

    public static final String PREFIX = "rdma.verbs.messaging";
}
