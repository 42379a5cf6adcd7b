package io.rdmaverbs.spring.boot.test.autoconfigure;

import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.provider.VerbsProvider;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.webmvc.test.autoconfigure.WebMvcTest;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.test.web.servlet.assertj.MockMvcTester;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The same slice as {@link AutoConfigureSimulatedVerbsTests} without the annotation: a {@code @WebMvcTest}
 * does not auto-configure rdma-verbs, so the declarations create nothing and nothing is opened.
 */
@WebMvcTest(properties = { "rdma.verbs.provider=simulated", "rdma.verbs.devices.hca.name=rxe0",
        "rdma.verbs.devices.hca.protection-domains=pd" })
@Import(DeviceController.class)
class WebMvcTestWithoutSimulatedVerbsTests {

    @Autowired
    private ApplicationContext context;

    @Autowired
    private MockMvcTester mvc;

    @Test
    void aWebMvcTestWithoutTheAnnotationHasNoVerbsBeans() {
        assertThat(context.getBeanNamesForType(VerbsProvider.class)).isEmpty();
        assertThat(context.getBeanNamesForType(Verbs.class)).isEmpty();
        assertThat(context.containsBean("hca")).isFalse();
        assertThat(context.containsBean("pd")).isFalse();
    }

    @Test
    void theControllerUnderTestIsGivenNoDeviceContext() {
        assertThat(mvc.get().uri("/devices")).hasStatusOk().hasBodyTextEqualTo("[]");
    }
}
