package io.rdmaverbs.spring.boot.autoconfigure.messaging;

import io.rdmaverbs.spring.boot.autoconfigure.messaging.OrderEndpoint.Order;
import io.rdmaverbs.spring.boot.autoconfigure.messaging.OrderEndpoint.Receipt;
import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.annotation.ReflectiveRuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What ahead-of-time processing registers for an endpoint through {@code @RdmaMessageMapping}'s
 * {@code @Reflective}: the methods, invoked by reflection, and the JSON payload and reply types, bound
 * (the real {@code process-aot} run is the sample's, SampleAotProcessIT).
 */
class EndpointHintsTests {

    @Test
    void theMappedMethodsAreInvocableAndTheirPayloadAndReplyTypesBound() throws NoSuchMethodException {
        RuntimeHints hints = new RuntimeHints();

        new ReflectiveRuntimeHintsRegistrar().registerRuntimeHints(hints, OrderEndpoint.class);

        assertThat(RuntimeHintsPredicates.reflection()
                .onMethodInvocation(OrderEndpoint.class.getDeclaredMethod("place", Order.class))).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection()
                .onMethodInvocation(OrderEndpoint.class.getDeclaredMethod("later", Order.class))).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(Order.class)).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Order.class.getMethod("item")))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(Receipt.class)).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(io.rdmaverbs.verbs.connection.Session.class))
                .as("a parameter that is no payload").rejects(hints);
    }
}
