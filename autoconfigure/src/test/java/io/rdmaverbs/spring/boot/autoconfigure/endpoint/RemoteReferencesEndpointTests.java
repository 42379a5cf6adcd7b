package io.rdmaverbs.spring.boot.autoconfigure.endpoint;

import java.net.InetSocketAddress;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.rdmaverbs.spring.boot.descriptor.ConnectionDescriptor;
import io.rdmaverbs.spring.boot.descriptor.ResourceNode;
import io.rdmaverbs.spring.boot.endpoint.VerbsEndpoint;
import io.rdmaverbs.spring.boot.health.DeviceHealthIndicator;
import io.rdmaverbs.spring.boot.teardown.TeardownPolicy;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.MemoryRegion;
import io.rdmaverbs.verbs.RemoteRegion;
import io.rdmaverbs.verbs.ResourceKind;
import io.rdmaverbs.verbs.StuckReference;
import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.RemoteAccess;
import io.rdmaverbs.verbs.connection.ConnectSpec;
import io.rdmaverbs.verbs.connection.Connection;
import io.rdmaverbs.verbs.connection.ConnectionListener;
import io.rdmaverbs.verbs.connection.Connections;
import io.rdmaverbs.verbs.connection.ListenSpec;
import io.rdmaverbs.verbs.connection.RemoteKey;
import io.rdmaverbs.verbs.provider.simulated.DeviceProfile;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.health.contributor.Health;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The endpoint and the device health with one-sided RDMA between two connections of one graph: the export
 * shows on the exporting connection and as a hold on its region, the handle on the importing one and as a
 * resource under its QP.
 */
class RemoteReferencesEndpointTests {

    @Test
    void exportsShowPerConnectionAndAsHoldsAndRemoteHandlesAsResourcesUnderTheirQueuePair() throws Exception {
        SimulatedProvider sim = SimulatedProvider.of(DeviceProfile.rxe("rxe0"));
        try (Verbs verbs = Verbs.using(sim); Connections server = Connections.on(verbs, "server");
                Connections client = Connections.on(verbs, "client")) {
            CompletableFuture<Connection> accepted = new CompletableFuture<>();
            ConnectionListener listener = server.listen(ListenSpec.on(new InetSocketAddress(
                    sim.addresses("rxe0").getFirst(), 0)), request -> accepted.complete(request.accept()));
            Connection c = client.connect(ConnectSpec.to(listener.address()));
            Connection s = accepted.get(10, TimeUnit.SECONDS);
            MemoryRegion region = s.allocateMemory(4096, EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ));
            RemoteKey key = s.session().export(region, 0, 1024, EnumSet.of(RemoteAccess.READ));
            RemoteRegion handle = c.session().remoteRegion(key.toByteArray());

            VerbsEndpoint endpoint = new VerbsEndpoint(verbs, TeardownPolicy.CASCADE, List.of(), Show.ALWAYS,
                    () -> List.of(server, client));
            VerbsEndpoint.VerbsGraph graph = endpoint.graph();

            ConnectionDescriptor exporting = graph.connections().stream().filter(d -> d.cmId().equals(s.cmId().name()))
                    .findFirst().orElseThrow();
            assertThat(exporting.exports()).singleElement().satisfies(e -> {
                assertThat(e.region()).isEqualTo(region.ref());
                assertThat(e.exportId()).isEqualTo(key.exportId());
                assertThat(e.rkey()).isEqualTo("0x" + Integer.toHexString(region.rkey()));
                assertThat(e.length()).isEqualTo(1024);
                assertThat(e.access()).containsExactly("READ");
                assertThat(e.holder()).contains(s.name());
            });
            ConnectionDescriptor importing = graph.connections().stream().filter(d -> d.cmId().equals(c.cmId().name()))
                    .findFirst().orElseThrow();
            assertThat(importing.remoteRegions()).singleElement().satisfies(r -> {
                assertThat(r.handle()).isEqualTo(handle.ref());
                assertThat(r.exportId()).isEqualTo(key.exportId());
                assertThat(r.operationsInFlight()).isZero();
            });
            assertThat(graph.stuckReferences()).anySatisfy(d -> {
                assertThat(d.cause()).isEqualTo("REMOTE_EXPORT");
                assertThat(d.consequence()).isEqualTo("BREAKS_REMOTE_ACCESS");
                assertThat(d.resource()).isEqualTo(region.ref());
            });
            assertThat(graph.teardownBlockers()).as("held from outside the graph: by the peer")
                    .anySatisfy(d -> assertThat(d.cause()).isEqualTo("REMOTE_EXPORT"));
            assertThat(graph.closePlan().toString()).contains("revoke export " + key.exportId());
            assertThat(find(graph.resources(), handle.id())).hasValueSatisfying(node -> {
                assertThat(node.kind()).isEqualTo(ResourceKind.REMOTE_REGION.name());
                assertThat(node.parents()).containsExactly(c.queuePair().ref());
                assertThat(node.details()).containsEntry("exportId", key.exportId()).containsEntry("length", 1024L);
            });
            assertThat(find(graph.resources(), region.id())).hasValueSatisfying(node -> assertThat(node.details())
                    .containsKey("exports"));

            DeviceContext ctx = s.protectionDomain().context();
            Health health = new DeviceHealthIndicator(verbs, ctx, 1, new DeviceHealthIndicator.DeviceState() {
                @Override
                public Optional<io.rdmaverbs.verbs.AsyncEvent> fatalEvent(DeviceContext context) {
                    return Optional.empty();
                }

                @Override
                public Optional<String> circuitBreaker(DeviceContext context) {
                    return Optional.empty();
                }

                @Override
                public List<io.rdmaverbs.spring.boot.leaks.SuspectedLeak> suspectedLeaks(
                        List<io.rdmaverbs.verbs.VerbsResource> resources) {
                    return List.of();
                }
            }).health(true);
            assertThat(health.getDetails().get("resources")).asInstanceOf(
                    org.assertj.core.api.InstanceOfAssertFactories.MAP).containsEntry("REMOTE_REGION", 1);
            assertThat(health.getDetails().get("stuckReferences")).asString().contains("REMOTE_EXPORT");

            c.close();
            assertThat(region.stuckReferences()).extracting(StuckReference::cause)
                    .doesNotContain(StuckReference.Cause.REMOTE_EXPORT);
        }
    }

    private static Optional<ResourceNode> find(List<ResourceNode> nodes, long id) {
        for (ResourceNode n : nodes) {
            if (n.id() == id) {
                return Optional.of(n);
            }
            Optional<ResourceNode> deeper = find(n.dependents(), id);
            if (deeper.isPresent()) {
                return deeper;
            }
        }
        return Optional.empty();
    }
}
