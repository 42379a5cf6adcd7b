package io.rdmaverbs.spring.boot.autoconfigure.messaging;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import brave.Tracing;
import brave.handler.MutableSpan;
import brave.handler.SpanHandler;
import brave.propagation.TraceContext;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.brave.bridge.BraveBaggageManager;
import io.micrometer.tracing.brave.bridge.BraveCurrentTraceContext;
import io.micrometer.tracing.brave.bridge.BravePropagator;
import io.micrometer.tracing.brave.bridge.BraveTracer;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.rdmaverbs.spring.boot.autoconfigure.messaging.OrderEndpoint.Order;
import io.rdmaverbs.spring.boot.autoconfigure.messaging.OrderEndpoint.Receipt;
import io.rdmaverbs.spring.boot.messaging.RdmaRemoteEndpointException;
import io.rdmaverbs.spring.boot.messaging.RdmaTemplate;
import org.junit.jupiter.api.Test;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The observations of the template and the endpoints, with their low-cardinality tags, and the trace
 * context carried across the RDMA hop in the message headers (a real tracer: Brave, through Micrometer
 * Tracing's bridge).
 */
class MessagingObservationTests {

    @Test
    void aRequestIsObservedOnBothSidesWithThePeerListenerRouteAndOutcome() {
        TestObservationRegistry registry = TestObservationRegistry.create();
        Loopback.of("orders").withBean(OrderEndpoint.class).withBean(ObservationRegistry.class, () -> registry)
                .run(context -> {
                    RdmaTemplate template = context.getBean(RdmaTemplate.class);

                    template.convertSendAndReceive("orders", "place", new Order("disk", 2), Receipt.class);
                    assertThatThrownBy(() -> template.convertSendAndReceive("orders", "place", new Order("disk", -1),
                            Receipt.class)).isInstanceOf(RdmaRemoteEndpointException.class);
                    template.convertAndSend("orders", "note", "hello");

                    await().untilAsserted(() -> assertThat(registry)
                            .hasNumberOfObservationsWithNameEqualTo("rdma.messaging.handle", 3));
                    assertThat(registry).hasHandledContextsThatSatisfy(contexts -> assertThat(contexts).hasSize(6))
                            .hasAnObservation(o -> o.hasNameEqualTo("rdma.messaging.request")
                                    .hasLowCardinalityKeyValue("rdma.peer", "orders")
                                    .hasLowCardinalityKeyValue("rdma.route", "place")
                                    .hasLowCardinalityKeyValue("outcome", "SUCCESS")
                                    .hasLowCardinalityKeyValue("exception", "none")
                                    .hasContextualNameEqualTo("orders request place"))
                            .hasAnObservation(o -> o.hasNameEqualTo("rdma.messaging.request")
                                    .hasLowCardinalityKeyValue("outcome", "REMOTE_ERROR")
                                    .hasLowCardinalityKeyValue("exception", "RdmaRemoteEndpointException"))
                            .hasAnObservation(o -> o.hasNameEqualTo("rdma.messaging.send")
                                    .hasLowCardinalityKeyValue("rdma.route", "note")
                                    .hasLowCardinalityKeyValue("outcome", "SUCCESS"))
                            .hasAnObservation(o -> o.hasNameEqualTo("rdma.messaging.handle")
                                    .hasLowCardinalityKeyValue("rdma.listener", "orders")
                                    .hasLowCardinalityKeyValue("rdma.route", "place")
                                    .hasLowCardinalityKeyValue("rdma.message.kind", "request")
                                    .hasLowCardinalityKeyValue("outcome", "SUCCESS"))
                            .hasAnObservation(o -> o.hasNameEqualTo("rdma.messaging.handle")
                                    .hasLowCardinalityKeyValue("rdma.route", "place")
                                    .hasLowCardinalityKeyValue("outcome", "ERROR")
                                    .hasLowCardinalityKeyValue("exception", "IllegalArgumentException"))
                            .hasAnObservation(o -> o.hasNameEqualTo("rdma.messaging.handle")
                                    .hasLowCardinalityKeyValue("rdma.route", "note")
                                    .hasLowCardinalityKeyValue("rdma.message.kind", "message"));
                });
    }

    @Test
    void theTraceCrossesTheRdmaHopTheEndpointsSpanIsAChildOfTheRequestsSpan() {
        List<MutableSpan> spans = new CopyOnWriteArrayList<>();
        Tracing tracing = Tracing.newBuilder().addSpanHandler(new SpanHandler() {
            @Override
            public boolean end(TraceContext context, MutableSpan span, Cause cause) {
                spans.add(span);
                return true;
            }
        }).build();
        Tracer tracer = new BraveTracer(tracing.tracer(), new BraveCurrentTraceContext(tracing.currentTraceContext()),
                new BraveBaggageManager());
        BravePropagator propagator = new BravePropagator(tracing);
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(
                new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
                new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
                new DefaultTracingObservationHandler(tracer)));
        try (tracing) {
            Loopback.of("orders").withBean(OrderEndpoint.class).withBean(ObservationRegistry.class, () -> registry)
                    .run(context -> {
                        RdmaTemplate template = context.getBean(RdmaTemplate.class);

                        template.convertSendAndReceive("orders", "place", new Order("disk", 2), Receipt.class);

                        await().until(() -> spans.size() == 2);
                    });
        }
        MutableSpan request = spans.stream().filter(s -> "orders request place".equals(s.name())).findFirst()
                .orElseThrow(() -> new AssertionError("no request span in " + spans));
        MutableSpan handle = spans.stream().filter(s -> "orders handle place".equals(s.name())).findFirst()
                .orElseThrow(() -> new AssertionError("no handle span in " + spans));
        assertThat(request.kind()).isEqualTo(brave.Span.Kind.CLIENT);
        assertThat(handle.kind()).isEqualTo(brave.Span.Kind.SERVER);
        assertThat(handle.traceId()).isEqualTo(request.traceId());
        assertThat(handle.parentId()).isEqualTo(request.id());
    }
}
