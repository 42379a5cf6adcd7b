package io.rdmaverbs.spring.boot.autoconfigure.messaging;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import io.rdmaverbs.spring.boot.messaging.RdmaEndpoint;
import io.rdmaverbs.spring.boot.messaging.RdmaHeader;
import io.rdmaverbs.spring.boot.messaging.RdmaHeaders;
import io.rdmaverbs.spring.boot.messaging.RdmaMessageMapping;
import io.rdmaverbs.verbs.connection.Session;

/** The endpoints of the listener {@code orders} the messaging tests talk to. */
@RdmaEndpoint("orders")
class OrderEndpoint {

    record Order(String item, int quantity) {
    }

    record Receipt(String item, int quantity, long total) {
    }

    final List<Object> received = new CopyOnWriteArrayList<>();

    @RdmaMessageMapping("place")
    Receipt place(Order order) {
        if (order.quantity() <= 0) {
            throw new IllegalArgumentException("quantity must be positive, was " + order.quantity());
        }
        return new Receipt(order.item(), order.quantity(), order.quantity() * 250L);
    }

    @RdmaMessageMapping("batch")
    int batch(List<Order> orders) {
        return orders.stream().mapToInt(Order::quantity).sum();
    }

    @RdmaMessageMapping("upper")
    String upper(String text, @RdmaHeader("locale") String locale, Session session) {
        return text.toUpperCase(java.util.Locale.forLanguageTag(locale)) + " via " + session.name();
    }

    @RdmaMessageMapping("reverse")
    byte[] reverse(byte[] bytes) {
        byte[] out = new byte[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            out[i] = bytes[bytes.length - 1 - i];
        }
        return out;
    }

    @RdmaMessageMapping("sum")
    long sum(MemorySegment segment) {
        long sum = 0;
        for (long i = 0; i < segment.byteSize(); i++) {
            sum += segment.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i) & 0xff;
        }
        return sum;
    }

    @RdmaMessageMapping("length")
    int length(ByteBuffer buffer, @RdmaHeaders Map<String, String> headers) {
        return buffer.remaining() + (headers.containsKey("extra") ? 1000 : 0);
    }

    @RdmaMessageMapping("later")
    CompletableFuture<Receipt> later(Order order) {
        return CompletableFuture.supplyAsync(() -> new Receipt(order.item(), order.quantity(), -1));
    }

    @RdmaMessageMapping("later-failing")
    CompletableFuture<Receipt> laterFailing(Order order) {
        return CompletableFuture.failedFuture(new IllegalStateException("the warehouse is closed"));
    }

    @RdmaMessageMapping("note")
    void note(String text) {
        received.add(text);
    }

    @RdmaMessageMapping("cancel")
    void cancel(Order order) {
        throw new IllegalStateException("cannot cancel " + order.item());
    }
}
