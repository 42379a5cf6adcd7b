package io.rdmaverbs.spring.boot.autoconfigure.messaging;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.rdmaverbs.spring.boot.connections.PeerState;
import io.rdmaverbs.spring.boot.connections.RdmaListener;
import io.rdmaverbs.spring.boot.connections.RdmaPeer;
import io.rdmaverbs.spring.boot.messaging.RdmaTemplate;
import io.rdmaverbs.spring.boot.messaging.converter.RemoteKeyMessageConverter;
import io.rdmaverbs.verbs.RemoteRegion;
import io.rdmaverbs.verbs.ResourceClosedException;
import io.rdmaverbs.verbs.attr.RemoteAccess;
import io.rdmaverbs.verbs.connection.ConnectionState;
import io.rdmaverbs.verbs.connection.Message;
import io.rdmaverbs.verbs.connection.RemoteKey;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * One-sided RDMA through the template: an endpoint exports a region of its connection and returns the
 * {@link RemoteKey}; the caller opens it on the peer's session and reads, writes and runs atomics on the
 * endpoint's memory; a revoked export, a closed region and a lost connection close the caller's handle, and
 * misuse is refused before anything is posted.
 */
class OneSidedMessagingTests {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @Test
    void theCallerReadsWritesAndRunsAtomicsOnTheRegionTheEndpointExported() {
        Loopback.of("tables").withBean(TableEndpoint.class).run(context -> {
            RdmaTemplate template = context.getBean(RdmaTemplate.class);
            TableEndpoint endpoint = context.getBean(TableEndpoint.class);

            RemoteRegion table = template.requestRemoteRegion("tables", "open", "in the endpoint's memory");
            MemorySegment into = MemorySegment.ofArray(new byte[25]);
            table.read(0, into).get(20, TimeUnit.SECONDS);
            table.write(100, MemorySegment.ofArray("written by the caller\0".getBytes(StandardCharsets.UTF_8)))
                    .get(20, TimeUnit.SECONDS);
            long first = table.fetchAndAdd(64, 5).get(20, TimeUnit.SECONDS);
            long second = table.fetchAndAdd(64, 5).get(20, TimeUnit.SECONDS);
            long swapped = table.compareAndSwap(64, 10, 42).get(20, TimeUnit.SECONDS);

            assertThat(into.getString(0)).isEqualTo("in the endpoint's memory");
            assertThat(endpoint.last.get().segment().getString(100)).isEqualTo("written by the caller");
            assertThat(first).isZero();
            assertThat(second).isEqualTo(5);
            assertThat(swapped).isEqualTo(10);
            assertThat(endpoint.last.get().segment().get(ValueLayout.JAVA_LONG, 64)).isEqualTo(42);
            assertThat(table.length()).isEqualTo(4096);
            assertThat(table.queuePair()).isSameAs(template.peer("tables").session().orElseThrow().connection()
                    .queuePair());
        });
    }

    @Test
    void aKeyTravelsWithItsOwnContentTypeAndAsBytesOpensToo() {
        Loopback.of("tables").withBean(TableEndpoint.class).run(context -> {
            RdmaTemplate template = context.getBean(RdmaTemplate.class);

            Message raw = template.sendAndReceive("tables", "open", Message.of("raw"));
            RemoteRegion fromBytes = template.remoteRegion("tables", raw.toByteArray());
            RemoteRegion readOnly = template.requestRemoteRegionAsync("tables", "open-read-only", "read only", null)
                    .get(20, TimeUnit.SECONDS);
            MemorySegment into = MemorySegment.ofArray(new byte[10]);
            readOnly.read(0, into).get(20, TimeUnit.SECONDS);

            assertThat(raw.header("content-type")).isEqualTo(RemoteKeyMessageConverter.CONTENT_TYPE);
            assertThat(raw.length()).isEqualTo(RemoteKey.BYTES);
            assertThat(fromBytes.access()).hasSize(3);
            assertThat(into.getString(0)).isEqualTo("read only");
            assertThat(readOnly.access()).containsExactly(RemoteAccess.READ);
        });
    }

    @Test
    void misuseIsRefusedBeforePostingAndTheConnectionStaysUp() {
        Loopback.of("tables").withBean(TableEndpoint.class).run(context -> {
            RdmaTemplate template = context.getBean(RdmaTemplate.class);
            RemoteRegion table = template.requestRemoteRegion("tables", "open", "bounds");
            RemoteRegion readOnly = template.requestRemoteRegion("tables", "open-read-only", "read only");

            assertThatThrownBy(() -> table.read(4090, MemorySegment.ofArray(new byte[23])))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("an RDMA READ of 23 bytes at offset 4090 is outside the 4096 bytes exported")
                    .hasMessageContaining("refused before posting");
            assertThatThrownBy(() -> table.write(-1, MemorySegment.ofArray(new byte[1])))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("outside");
            assertThatThrownBy(() -> table.compareAndSwap(60, 0, 1)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("not on an 8-byte boundary");
            assertThatThrownBy(() -> readOnly.write(0, MemorySegment.ofArray(new byte[1])))
                    .isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("was exported for [READ] only");
            assertThatThrownBy(() -> template.remoteRegion("tables", new byte[RemoteKey.BYTES]))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a remote key");

            MemorySegment into = MemorySegment.ofArray(new byte[7]);
            table.read(0, into).join();
            assertThat(into.getString(0)).isEqualTo("bounds");
            assertThat(table.operationsInFlight()).isZero();
            assertThat(template.peer("tables").state()).isEqualTo(PeerState.CONNECTED);
            assertThat(context.getBean(RdmaListener.class).sessions()).singleElement()
                    .satisfies(s -> assertThat(s.connection().state()).isEqualTo(ConnectionState.CONNECTED));
        });
    }

    @Test
    void aRevokedExportOrAClosedRegionClosesTheCallersHandle() {
        Loopback.of("tables").withBean(TableEndpoint.class).run(context -> {
            RdmaTemplate template = context.getBean(RdmaTemplate.class);

            RemoteKey key = template.convertSendAndReceive("tables", "open", "revoked", RemoteKey.class);
            RemoteRegion revoked = template.remoteRegion("tables", key);
            template.convertSendAndReceive("tables", "revoke", key, Message.class);
            RemoteRegion dropped = template.requestRemoteRegion("tables", "open", "dropped");
            template.sendAndReceive("tables", "drop", Message.empty());

            assertThat(revoked.isOpen()).isFalse();
            assertThatThrownBy(() -> revoked.read(0, MemorySegment.ofArray(new byte[8])))
                    .isInstanceOf(ResourceClosedException.class).hasMessageContaining("revoked by the peer at");
            assertThatThrownBy(() -> template.remoteRegion("tables", key)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("was revoked by the peer");
            assertThatThrownBy(() -> dropped.fetchAndAdd(0, 1)).isInstanceOf(ResourceClosedException.class)
                    .hasMessageContaining("revoked by the peer at");
        });
    }

    @Test
    void aHandleClosesWithItsConnectionAndTheKeyDoesNotOpenOnTheReconnectedSession() {
        Loopback.of("tables").withBean(TableEndpoint.class)
                .withPropertyValues("rdma.verbs.connections.peers.tables.reconnect.initial-backoff=100ms")
                .run(context -> {
                    RdmaTemplate template = context.getBean(RdmaTemplate.class);
                    RdmaPeer peer = template.peer("tables");
                    byte[] key = template.convertSendAndReceive("tables", "open", "before", byte[].class);
                    RemoteRegion before = template.remoteRegion("tables", key);
                    var lost = peer.session().orElseThrow();

                    context.getBean(RdmaListener.class).sessions().getFirst().connection().disconnect();
                    await().atMost(WAIT).until(() -> peer.session().filter(s -> s != lost).isPresent());
                    assertThat(peer.awaitConnected(WAIT)).as("reconnected: %s", peer.lastError()).isTrue();

                    assertThat(before.isOpen()).isFalse();
                    assertThatThrownBy(() -> before.read(0, MemorySegment.ofArray(new byte[6])))
                            .isInstanceOf(ResourceClosedException.class).hasMessageContaining("ended");
                    assertThatThrownBy(() -> template.remoteRegion("tables", key))
                            .isInstanceOf(IllegalArgumentException.class)
                            .hasMessageContaining("was exported on another session");
                    RemoteRegion after = template.requestRemoteRegion("tables", "open", "after");
                    MemorySegment into = MemorySegment.ofArray(new byte[6]);
                    after.read(0, into).get(20, TimeUnit.SECONDS);
                    assertThat(into.getString(0)).isEqualTo("after");
                });
    }
}
