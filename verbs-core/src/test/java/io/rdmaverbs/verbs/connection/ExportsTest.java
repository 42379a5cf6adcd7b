package io.rdmaverbs.verbs.connection;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.rdmaverbs.verbs.CloseRefusedException;
import io.rdmaverbs.verbs.ClosePolicy;
import io.rdmaverbs.verbs.MemoryRegion;
import io.rdmaverbs.verbs.RemoteRegion;
import io.rdmaverbs.verbs.ResourceClosedException;
import io.rdmaverbs.verbs.VerbsListener;
import io.rdmaverbs.verbs.VerbsResource;
import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.RemoteAccess;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The owner's side of one-sided RDMA between two simulated hosts, where the scenarios cannot reach: a
 * revocation asked for on the completion thread that would deliver its ACK, {@link Session#revoke}, and the
 * bounce memory of a window of heap operations.
 */
class ExportsTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private final TwoHosts hosts = new TwoHosts();
    /** The client answers a request only once this is counted down. */
    private final CountDownLatch cue = new CountDownLatch(1);

    @AfterEach
    void closeAll() {
        hosts.close();
    }

    /** The server's session (which exports) and the client's (which reads), connected. */
    private Session[] connected() throws Exception {
        CompletableFuture<Connection> accepted = new CompletableFuture<>();
        ConnectionListener l = hosts.server.listen(ListenSpec.on(hosts.anyServerPort())
                .session(SessionSpec.defaults().handler(m -> m.reply(m.toByteArray()))),
                request -> accepted.complete(request.accept()));
        Session c = hosts.client.connect(ConnectSpec.to(l.address()).session(SessionSpec.defaults().handler(m -> {
            cue.await(WAIT.toSeconds(), TimeUnit.SECONDS);
            m.reply(m.toByteArray());
        }))).session();
        Session s = accepted.get(WAIT.toSeconds(), TimeUnit.SECONDS).session();
        return new Session[] {s, c};
    }

    @Test
    void aCascadeCloseOnTheCompletionThreadIsRefusedAndTheExportStillHoldsItsRegion() throws Exception {
        Session[] pair = connected();
        Session owner = pair[0];
        MemoryRegion region = owner.connection().allocateMemory(4096, EnumSet.of(AccessFlag.LOCAL_WRITE,
                AccessFlag.REMOTE_READ));
        RemoteKey key = owner.export(region, EnumSet.of(RemoteAccess.READ));
        RemoteRegion handle = pair[1].remoteRegion(key.toByteArray());

        // A request's reply completes on the owner's completion thread: the close there would wait for an ACK
        // that only this same thread could deliver.
        // (The client answers on cue, so the callback is attached before the reply can come.)
        CompletableFuture<Throwable> onLoop = owner.request(Message.of("anyone")).handle((reply, e) -> {
            try {
                region.close(ClosePolicy.CASCADE);
                return null;
            } catch (RuntimeException refused) {
                return refused;
            }
        });
        cue.countDown();

        assertThat(onLoop.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("completion thread").hasMessageContaining("export 1");
        assertThat(region.isOpen()).isTrue();
        assertThat(owner.exports()).as("the export stays, not ended by the refusal").hasSize(1);
        assertThatThrownBy(region::close).as("so a strict close is still refused")
                .isInstanceOf(CloseRefusedException.class);
        assertThat(handle.isOpen()).isTrue();

        region.close(ClosePolicy.CASCADE);
        assertThat(region.isClosed()).isTrue();
        assertThat(handle.isOpen()).isFalse();
    }

    @Test
    void revokingAKeyClosesThePeersHandlesAndFreesTheRegionForAStrictClose() throws Exception {
        Session[] pair = connected();
        Session owner = pair[0];
        MemoryRegion region = owner.connection().allocateMemory(4096, EnumSet.of(AccessFlag.LOCAL_WRITE,
                AccessFlag.REMOTE_READ, AccessFlag.REMOTE_WRITE));
        RemoteKey first = owner.export(region, 0, 1024, EnumSet.of(RemoteAccess.READ));
        RemoteKey second = owner.export(region, 1024, 1024, EnumSet.of(RemoteAccess.WRITE));
        RemoteRegion readable = pair[1].remoteRegion(first.toByteArray());
        RemoteRegion writable = pair[1].remoteRegion(second);

        owner.revoke(first);

        assertThat(owner.exports()).extracting(e -> e.id()).containsExactly(second.exportId());
        assertThatThrownBy(() -> readable.read(0, MemorySegment.ofArray(new byte[8])))
                .isInstanceOf(ResourceClosedException.class).hasMessageContaining("revoked by the peer at");
        assertThatThrownBy(() -> pair[1].remoteRegion(first)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("was revoked by the peer");
        writable.write(0, MemorySegment.ofArray(new byte[] {1, 2, 3}))
                .get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(region.segment().get(ValueLayout.JAVA_BYTE, 1026)).isEqualTo((byte) 3);

        owner.revoke(second);
        region.close();
        assertThat(region.isClosed()).as("no export left: a strict close goes ahead").isTrue();
    }

    @Test
    void aWindowOfSmallHeapReadsCopiesThroughTheBounceRegionAloneRegisteringNothingPerOperation() throws Exception {
        Session[] pair = connected();
        MemoryRegion region = pair[0].connection().allocateMemory(64 * 128, EnumSet.of(AccessFlag.LOCAL_WRITE,
                AccessFlag.REMOTE_READ));
        for (int i = 0; i < 128; i++) {
            region.segment().set(ValueLayout.JAVA_BYTE, 64L * i, (byte) i);
        }
        RemoteRegion handle = pair[1].remoteRegion(pair[0].export(region, EnumSet.of(RemoteAccess.READ)));
        List<String> registered = new CopyOnWriteArrayList<>();
        hosts.clientVerbs.addListener(new VerbsListener() {
            @Override
            public void created(VerbsResource resource) {
                if (resource instanceof MemoryRegion) {
                    registered.add(resource.name());
                }
            }
        });

        byte[][] into = new byte[128][64];
        List<CompletableFuture<?>> reads = new ArrayList<>();
        for (int i = 0; i < 128; i++) {
            reads.add(handle.read(64L * i, MemorySegment.ofArray(into[i])));
        }
        CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new)).get(WAIT.toSeconds(), TimeUnit.SECONDS);

        for (int i = 0; i < 128; i++) {
            assertThat(into[i][0]).isEqualTo((byte) i);
        }
        assertThat(registered).as("one bounce region for the 128 reads in flight, no region per read")
                .singleElement().asString().endsWith("/bounce");
    }

    @Test
    void aConnectionRegisteringARegionPerOperationKeepsNoneOfTheClosedOnes() throws Exception {
        Connection connection = connected()[0].connection();
        for (int i = 0; i < 50; i++) {
            connection.allocateMemory(4096, EnumSet.of(AccessFlag.LOCAL_WRITE)).close();
        }
        MemoryRegion kept = connection.allocateMemory(4096, EnumSet.of(AccessFlag.LOCAL_WRITE));

        assertThat(connection.trackedRegions()).as("the open region alone, not the 50 closed before it").isOne();
        assertThat(kept.name()).endsWith("/mr-51");
        assertThat(connection.resources()).contains(kept);
    }
}
