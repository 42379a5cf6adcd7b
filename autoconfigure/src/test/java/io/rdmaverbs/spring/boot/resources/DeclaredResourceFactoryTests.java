package io.rdmaverbs.spring.boot.resources;

import java.util.Map;

import io.rdmaverbs.spring.boot.resources.Declarations.Device;
import io.rdmaverbs.verbs.ProtectionDomain;
import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.provider.simulated.DeviceProfile;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The bean definitions of an application processed ahead of time are those of the build's
 * declarations; the factory reads the declarations again at startup and refuses to run with a set of
 * keys that does not match them.
 */
class DeclaredResourceFactoryTests {

    private static final String MAIN = "rdma.verbs.devices.main";
    private static final Map<String, String> AT_BUILD = Map.of(MAIN + ".name", "rxe0",
            MAIN + ".protection-domains", "pd0");

    private final Verbs verbs = Verbs.using(SimulatedProvider.of(DeviceProfile.rxe("rxe0")));

    @Test
    void createsEachResourceTheBuildDeclaredFromTheSettingsReadAtStartup() {
        DefaultListableBeanFactory beans = definedAtBuildTime();
        DeclaredResourceFactory factory = new DeclaredResourceFactory(verbs, bound(AT_BUILD), beans);
        beans.registerSingleton(DeclaredResourceFactory.BEAN_NAME, factory);

        assertThat(beans.getBean("pd0", ProtectionDomain.class).context().name()).isEqualTo("main");
        assertThat(verbs.resources()).extracting(r -> r.name()).containsExactly("main", "pd0");
    }

    @Test
    void aResourceDeclaredAtStartupButNotAtBuildTimeFailsTheStartupNamingIt() {
        Map<String, String> atStartup = Map.of(MAIN + ".name", "rxe0", MAIN + ".protection-domains", "pd0,pd1");

        assertThatExceptionOfType(InvalidDeclarationException.class)
                .isThrownBy(() -> new DeclaredResourceFactory(verbs, bound(atStartup), definedAtBuildTime()))
                .satisfies(e -> assertThat(e.property()).isEqualTo(MAIN + ".protection-domains[1]"))
                .satisfies(e -> assertThat(e.action()).contains("ahead of time"));
        assertThat(verbs.resources()).isEmpty();
    }

    @Test
    void aResourceTheBuildDeclaredButStartupNoLongerDoesIsNotCreated() {
        DeclaredResourceFactory factory = new DeclaredResourceFactory(verbs, bound(Map.of(MAIN + ".name", "rxe0")),
                definedAtBuildTime());

        assertThatExceptionOfType(InvalidDeclarationException.class).isThrownBy(() -> factory.create("pd0"))
                .satisfies(e -> assertThat(e.problem()).contains("'pd0'", "not declared now"));
        assertThat(verbs.resources()).isEmpty();
    }

    /** The definitions the registrar makes for {@link #AT_BUILD}, as process-aot would have fixed them. */
    private static DefaultListableBeanFactory definedAtBuildTime() {
        DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
        MockEnvironment environment = new MockEnvironment();
        AT_BUILD.forEach(environment::setProperty);
        DeclaredResourcesRegistrar registrar = new DeclaredResourcesRegistrar();
        registrar.setEnvironment(environment);
        registrar.registerBeanDefinitions(AnnotationMetadata.introspect(DeclaredResourceFactoryTests.class), beans);
        return beans;
    }

    private static Map<String, Device> bound(Map<String, String> properties) {
        return new Binder(new MapConfigurationPropertySource(properties))
                .bind(Declarations.DEVICES, Bindable.mapOf(String.class, Device.class)).get();
    }
}
