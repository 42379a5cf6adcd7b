package io.rdmaverbs.spring.boot.test.autoconfigure;

import java.util.List;

import io.rdmaverbs.spring.boot.autoconfigure.VerbsProperties.SimulatedProfile;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.ProtectionDomain;
import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.provider.VerbsProvider;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.webmvc.test.autoconfigure.WebMvcTest;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.test.web.servlet.assertj.MockMvcTester;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link AutoConfigureSimulatedVerbs} on a {@code @WebMvcTest}: the slice gets the declared resources
 * on the simulated provider, although the application is configured for the native one.
 */
@WebMvcTest(properties = { "rdma.verbs.provider=native", "rdma.verbs.devices.hca.name=mlx5_0",
        "rdma.verbs.devices.hca.protection-domains=pd" })
@AutoConfigureSimulatedVerbs(@SimulatedVerbs.Device(name = "mlx5_0", profile = SimulatedProfile.MLX5))
@Import(DeviceController.class)
class AutoConfigureSimulatedVerbsTests {

    @Autowired
    private ApplicationContext context;

    @Autowired
    private MockMvcTester mvc;

    @Test
    void aWebMvcTestWithTheAnnotationHasTheDeclaredResourcesOnTheSimulatedDevice() {
        assertThat(context.getBean(VerbsProvider.class)).isInstanceOf(SimulatedProvider.class);
        DeviceContext hca = context.getBean("hca", DeviceContext.class);
        assertThat(hca.device().name()).isEqualTo("mlx5_0");
        assertThat(context.getBean("pd", ProtectionDomain.class).context()).isSameAs(hca);
        assertThat(context.getBean(Verbs.class).contexts()).containsExactly(hca);
    }

    @Test
    void theControllerUnderTestIsGivenTheDeclaredDeviceContext() {
        assertThat(mvc.get().uri("/devices")).hasStatusOk().hasBodyTextEqualTo("[\"mlx5_0\"]");
    }

    @Test
    void passesItsDevicesOnAsSimulatedVerbsDoesAndDefaultsToOneRxeDevice() {
        SimulatedVerbsContextCustomizerFactory factory = new SimulatedVerbsContextCustomizerFactory();
        assertThat(factory.createContextCustomizer(AutoConfigureSimulatedVerbsTests.class, List.of()))
                .isEqualTo(factory.createContextCustomizer(OnMlx5.class, List.of()));
        assertThat(factory.createContextCustomizer(DefaultDevice.class, List.of()))
                .isEqualTo(factory.createContextCustomizer(SimulatedVerbsTests.Default.class, List.of()))
                .isNotEqualTo(factory.createContextCustomizer(OnMlx5.class, List.of()));
    }

    @SimulatedVerbs(@SimulatedVerbs.Device(name = "mlx5_0", profile = SimulatedProfile.MLX5))
    static class OnMlx5 {
    }

    @AutoConfigureSimulatedVerbs
    static class DefaultDevice {
    }
}
