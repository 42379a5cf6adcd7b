package io.rdmaverbs.spring.boot.test.autoconfigure;

import java.util.List;

import io.rdmaverbs.spring.boot.autoconfigure.VerbsProperties.SimulatedProfile;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.XrcDomain;
import io.rdmaverbs.verbs.attr.DeviceInfo;
import io.rdmaverbs.verbs.provider.VerbsProvider;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link SimulatedVerbs} on a plain {@code @SpringBootTest}, over an application configured for native. */
@SpringBootTest(properties = { "rdma.verbs.provider=native",
        "rdma.verbs.devices.hca.name=mlx5_0", "rdma.verbs.devices.hca.xrc-domains.shared.create=true" })
@SimulatedVerbs({ @SimulatedVerbs.Device(name = "mlx5_0", profile = SimulatedProfile.MLX5),
        @SimulatedVerbs.Device(name = "rxe0") })
class SimulatedVerbsTests {

    @Autowired
    private VerbsProvider provider;

    @Autowired
    private DeviceContext hca;

    @Autowired
    private XrcDomain shared;

    @Test
    void runsTheContextOnTheSimulatedDevicesTheAnnotationDeclares() {
        assertThat(provider).isInstanceOf(SimulatedProvider.class);
        assertThat(provider.deviceVerbs().devices()).extracting(DeviceInfo::name)
                .containsExactlyInAnyOrder("mlx5_0", "rxe0");
        assertThat(hca.device().name()).isEqualTo("mlx5_0");
        assertThat(hca.supportsXrc()).isTrue();
        assertThat(shared.context()).isSameAs(hca);
    }

    @Test
    void givesNoCustomizerToATestWithoutTheAnnotationAndEqualOnesForEqualAnnotations() {
        SimulatedVerbsContextCustomizerFactory factory = new SimulatedVerbsContextCustomizerFactory();
        assertThat(factory.createContextCustomizer(String.class, List.of())).isNull();
        assertThat(factory.createContextCustomizer(SimulatedVerbsTests.class, List.of()))
                .isEqualTo(factory.createContextCustomizer(Same.class, List.of()))
                .isNotEqualTo(factory.createContextCustomizer(Default.class, List.of()));
    }

    @Test
    void defaultsToOneRxeDevice() {
        SimulatedVerbs annotation = Default.class.getAnnotation(SimulatedVerbs.class);
        assertThat(SimulatedVerbsContextCustomizerFactory.properties(annotation))
                .containsEntry("rdma.verbs.provider", "simulated")
                .containsEntry("rdma.verbs.simulated.devices.rxe0.profile", "rxe")
                .hasSize(2);
    }

    @SimulatedVerbs({ @SimulatedVerbs.Device(name = "mlx5_0", profile = SimulatedProfile.MLX5),
            @SimulatedVerbs.Device(name = "rxe0") })
    static class Same {
    }

    @SimulatedVerbs
    static class Default {
    }
}
