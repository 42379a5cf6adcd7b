package io.rdmaverbs.spring.boot.autoconfigure.messaging;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.rdmaverbs.spring.boot.autoconfigure.messaging.OrderEndpoint.Order;
import io.rdmaverbs.spring.boot.autoconfigure.messaging.OrderEndpoint.Receipt;
import io.rdmaverbs.spring.boot.messaging.NoEndpointException;
import io.rdmaverbs.spring.boot.messaging.RdmaFailedMessage;
import io.rdmaverbs.spring.boot.messaging.RdmaMessageHeaders;
import io.rdmaverbs.spring.boot.messaging.RdmaMessageRecoverer;
import io.rdmaverbs.spring.boot.messaging.RdmaRemoteEndpointException;
import io.rdmaverbs.spring.boot.messaging.RdmaTemplate;
import io.rdmaverbs.verbs.connection.Message;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * {@code @RdmaEndpoint} methods of a declared listener, called through the {@link RdmaTemplate} of a peer
 * connected to it: payload types, headers, replies, asynchronous replies, one-way messages, error replies.
 */
class MessagingEndpointsTests {

    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    @Test
    void aRequestIsConvertedToTheEndpointsParameterAndItsReturnValueIsTheReply() {
        Loopback.of("orders").withBean(OrderEndpoint.class).run(context -> {
            assertThat(context).hasNotFailed();
            RdmaTemplate template = context.getBean(RdmaTemplate.class);

            Receipt receipt = template.convertSendAndReceive("orders", "place", new Order("disk", 3), Receipt.class);
            int total = template.convertSendAndReceive("orders", "batch",
                    List.of(new Order("a", 2), new Order("b", 5)), Integer.class);
            Message reply = template.sendAndReceive("orders", "upper",
                    Message.of("straße").withHeader("locale", "de"));
            byte[] reversed = template.convertSendAndReceive("orders", "reverse", new byte[] { 1, 2, 3 }, byte[].class);
            long sum = template.convertSendAndReceive("orders", "sum", ByteBuffer.wrap(new byte[] { 10, 20, (byte) 200 }),
                    Long.class);
            int length = template.convertSendAndReceive("orders", "length",
                    MemorySegment.ofArray(new byte[7]), Integer.class);

            assertThat(receipt).isEqualTo(new Receipt("disk", 3, 750));
            assertThat(total).isEqualTo(7);
            assertThat(reply.asString()).startsWith("STRASSE via ");
            assertThat(reply.header(RdmaMessageHeaders.CONTENT_TYPE)).isEqualTo("text/plain;charset=UTF-8");
            assertThat(reversed).containsExactly(3, 2, 1);
            assertThat(sum).isEqualTo(230);
            assertThat(length).isEqualTo(7);
        });
    }

    @Test
    void aCompletableFutureIsAnAsynchronousReplyAndItsFailureAnErrorReply() {
        Loopback.of("orders").withBean(OrderEndpoint.class).run(context -> {
            RdmaTemplate template = context.getBean(RdmaTemplate.class);

            CompletableFuture<Receipt> later = template.convertSendAndReceiveAsync("orders", "later",
                    new Order("tape", 1), Receipt.class);

            assertThat(later.get(20, TimeUnit.SECONDS)).isEqualTo(new Receipt("tape", 1, -1));
            assertThatThrownBy(() -> template.convertSendAndReceive("orders", "later-failing", new Order("x", 1),
                    Receipt.class)).isInstanceOf(RdmaRemoteEndpointException.class)
                    .hasMessageContaining("the warehouse is closed").hasMessageContaining("OrderEndpoint#laterFailing");
        });
    }

    @Test
    void anEndpointsExceptionReachesTheCallerNamingTheRemoteEndpointAndTheCauseBeforeAnyTimeout() {
        Loopback.of("orders").withBean(OrderEndpoint.class).withPropertyValues(
                "rdma.verbs.connections.peers.orders.request-timeout=30s").run(context -> {
                    RdmaTemplate template = context.getBean(RdmaTemplate.class);
                    long started = System.nanoTime();

                    assertThatThrownBy(() -> template.convertSendAndReceive("orders", "place", new Order("disk", 0),
                            Receipt.class))
                            .isInstanceOfSatisfying(RdmaRemoteEndpointException.class, e -> {
                                assertThat(e.peer()).isEqualTo("orders");
                                assertThat(e.endpoint()).isEqualTo("orders/place");
                                assertThat(e.endpointMethod()).isEqualTo("OrderEndpoint#place");
                                assertThat(e.errorType()).isEqualTo(IllegalArgumentException.class.getName());
                            })
                            .hasMessage("RDMA peer 'orders': remote endpoint 'orders/place' (OrderEndpoint#place) "
                                    + "failed: java.lang.IllegalArgumentException: quantity must be positive, was 0");
                    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
                });
    }

    @Test
    void aRequestNoEndpointTakesIsAnsweredWithAClearError() {
        Loopback.of("orders").withBean(OrderEndpoint.class).run(context -> {
            RdmaTemplate template = context.getBean(RdmaTemplate.class);

            assertThatThrownBy(() -> template.sendAndReceive("orders", "refund", Message.of("x")))
                    .isInstanceOfSatisfying(RdmaRemoteEndpointException.class,
                            e -> assertThat(e.errorType()).isEqualTo("no-endpoint"))
                    .hasMessageContaining("listener 'orders' has no endpoint for route 'refund' (its routes: batch, "
                            + "cancel, later, later-failing, length, note, place, reverse, sum, upper)");
        });
    }

    @Test
    void aOneWayMessageReachesAVoidEndpointAndARequestToItGetsAnEmptyReply() {
        Loopback.of("orders").withBean(OrderEndpoint.class).run(context -> {
            RdmaTemplate template = context.getBean(RdmaTemplate.class);
            OrderEndpoint endpoint = context.getBean(OrderEndpoint.class);

            template.convertAndSend("orders", "note", "first");
            Message reply = template.convertSendAndReceive("orders", "note", "second", Message.class);

            await().atMost(TIMEOUT).until(() -> endpoint.received.size() == 2);
            assertThat(endpoint.received).containsExactlyInAnyOrder("first", "second");
            assertThat(reply.length()).isZero();
        });
    }

    @Test
    void aOneWayMessageAnEndpointFailsOnOrNoEndpointTakesGoesToTheRecovererWithItsPayload() {
        List<RdmaFailedMessage> recovered = new CopyOnWriteArrayList<>();
        Loopback.of("orders").withBean(OrderEndpoint.class)
                .withBean(RdmaMessageRecoverer.class, () -> recovered::add).run(context -> {
                    RdmaTemplate template = context.getBean(RdmaTemplate.class);

                    template.convertAndSend("orders", "cancel", new Order("disk", 1));
                    template.send("orders", "refund", Message.of("r1"));

                    await().atMost(TIMEOUT).until(() -> recovered.size() == 2);
                    RdmaFailedMessage cancel = recovered.stream().filter(f -> f.route().equals("cancel")).findFirst()
                            .orElseThrow();
                    assertThat(cancel.endpoint()).isEqualTo("OrderEndpoint#cancel");
                    assertThat(cancel.cause()).hasMessage("cannot cancel disk");
                    assertThat(cancel.message().asString()).isEqualTo("{\"item\":\"disk\",\"quantity\":1}");
                    assertThat(cancel.message().header(RdmaMessageHeaders.CONTENT_TYPE)).isEqualTo("application/json");
                    RdmaFailedMessage refund = recovered.stream().filter(f -> f.route().equals("refund")).findFirst()
                            .orElseThrow();
                    assertThat(refund.cause()).isInstanceOf(NoEndpointException.class);
                    assertThat(refund.message().asString()).isEqualTo("r1");
                    assertThat(new String(refund.message().toByteArray(), StandardCharsets.UTF_8)).isEqualTo("r1");
                });
    }
}
