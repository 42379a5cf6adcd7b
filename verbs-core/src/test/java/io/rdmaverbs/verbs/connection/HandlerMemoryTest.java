package io.rdmaverbs.verbs.connection;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.rdmaverbs.verbs.MemoryRegion;
import io.rdmaverbs.verbs.VerbsResource;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A message handler still reading its payload while its connection is closed on another thread (a shutdown
 * does that while handlers run): the payload's memory, a receive buffer or a large message's own region, is
 * deregistered by the close but freed only once the handler returned. Before, the close freed it under the
 * handler, whose view (confined to its call, so liveness-checked against the call, not the memory) then read
 * freed memory; a 40 MiB large message's region, unmapped by glibc, crashed the JVM.
 */
class HandlerMemoryTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private final TwoHosts hosts = new TwoHosts();

    @AfterEach
    void closeAll() {
        hosts.close();
    }

    /** What the handler read after the close, and the payload's memory as the connection's region held it. */
    private record Seen(byte[] readAfterClose, MemorySegment memory, int holdsDuringHandler) {
    }

    private Seen closedUnderTheHandler(ConnectionSpec spec, byte[] sent) throws Exception {
        CountDownLatch inHandler = new CountDownLatch(1);
        CountDownLatch closed = new CountDownLatch(1);
        CompletableFuture<byte[]> read = new CompletableFuture<>();
        AtomicReference<Connection> server = new AtomicReference<>();
        ConnectionListener l = hosts.server.listen(ListenSpec.on(hosts.anyServerPort()).connection(spec)
                .session(SessionSpec.defaults().handler(m -> {
                    server.set(m.session().connection());
                    MemorySegment p = m.message().payload();
                    inHandler.countDown();
                    closed.await();
                    read.complete(p.toArray(ValueLayout.JAVA_BYTE));
                })), ConnectionRequest::accept);
        Session s = hosts.client.connect(ConnectSpec.to(l.address()).connection(spec)).session();
        s.send(io.rdmaverbs.verbs.connection.Message.of(sent));
        assertThat(inHandler.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        Connection c = server.get();
        List<MemoryRegion> regions = c.protectionDomain().dependents().stream()
                .filter(r -> r instanceof MemoryRegion).map(r -> (MemoryRegion) r).toList();
        MemoryRegion held = regions.stream().filter(r -> r.memoryHoldCount() > 0).findFirst()
                .orElseThrow(() -> new AssertionError("no region of " + regions + " is held by the handler"));
        MemorySegment memory = held.segment();
        int holds = held.memoryHoldCount();

        ConnectionCloseReport report = c.close(Duration.ofMillis(300));

        assertThat(report.released().isComplete()).as("the close released everything: %s", report).isTrue();
        assertThat(regions).allMatch(VerbsResource::isClosed);
        assertThat(memory.scope().isAlive()).as("deregistered, but its memory kept for the handler").isTrue();
        closed.countDown();
        byte[] bytes = read.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        long until = System.nanoTime() + WAIT.toNanos();
        while (memory.scope().isAlive() && System.nanoTime() - until < 0) {
            Thread.sleep(1);
        }
        return new Seen(bytes, memory, holds);
    }

    @Test
    void aReceiveBufferClosedUnderItsHandlerIsFreedOnlyOnceTheHandlerReturned() throws Exception {
        byte[] sent = "a message its handler reads after the close".repeat(4).getBytes();

        Seen seen = closedUnderTheHandler(ConnectionSpec.rc(4, 1024), sent);

        assertThat(seen.holdsDuringHandler()).isEqualTo(1);
        assertThat(seen.readAfterClose()).as("what arrived, not freed memory").isEqualTo(sent);
        assertThat(seen.memory().scope().isAlive()).as("freed once the handler returned").isFalse();
    }

    @Test
    void aLargeMessagesRegionClosedUnderItsHandlerIsFreedOnlyOnceTheHandlerReturned() throws Exception {
        byte[] sent = new byte[1 << 20];
        Arrays.fill(sent, (byte) 0x5a);
        sent[sent.length - 1] = 7;

        Seen seen = closedUnderTheHandler(ConnectionSpec.rc(), sent);

        assertThat(seen.memory().byteSize()).as("the large message's own region").isGreaterThanOrEqualTo(sent.length);
        assertThat(seen.readAfterClose()).isEqualTo(sent);
        assertThat(seen.memory().scope().isAlive()).as("freed once the handler returned").isFalse();
    }

    @Test
    void aHoldIsRefusedOnceTheRegionIsClosedAndTheLastHoldFreesTheMemory() throws Exception {
        ConnectionListener l = hosts.server.listen(ListenSpec.on(hosts.anyServerPort()).raw(), ConnectionRequest::accept);
        Connection c = hosts.client.connect(ConnectSpec.to(l.address()).raw());
        MemoryRegion r = c.protectionDomain().allocateMemory(4096, java.util.Set.of(), "held");
        MemorySegment memory = r.segment();
        var first = r.holdMemory();
        var second = r.holdMemory();
        assertThat(first).isNotNull();
        assertThat(second).isNotNull();
        assertThat(r.details()).containsEntry("memoryHolds", 2);

        r.close();

        assertThat(r.holdMemory()).as("closed: no new hold").isNull();
        assertThat(memory.scope().isAlive()).isTrue();
        first.close();
        first.close();
        assertThat(memory.scope().isAlive()).as("one hold is left").isTrue();
        second.close();
        assertThat(memory.scope().isAlive()).as("the last hold freed it").isFalse();
    }
}
