package io.rdmaverbs.spring.boot.autoconfigure;

import java.util.List;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.micrometer.tagged.TaggedCircuitBreakerMetrics;
import io.github.resilience4j.micrometer.tagged.TaggedRetryMetrics;
import io.github.resilience4j.retry.RetryRegistry;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmaverbs.spring.boot.autoconfigure.Contexts.ClosedResources;
import io.rdmaverbs.spring.boot.endpoint.VerbsEndpoint;
import io.rdmaverbs.spring.boot.endpoint.VerbsEndpointWebExtension;
import io.rdmaverbs.spring.boot.events.AsyncEventPublisher;
import io.rdmaverbs.spring.boot.events.AsyncEventReaders;
import io.rdmaverbs.spring.boot.events.DeviceFaults;
import io.rdmaverbs.spring.boot.health.VerbsHealthContributor;
import io.rdmaverbs.spring.boot.info.VerbsInfoContributor;
import io.rdmaverbs.spring.boot.metrics.VerbsEventMetrics;
import io.rdmaverbs.spring.boot.metrics.VerbsMetrics;
import io.rdmaverbs.spring.boot.resilience.DeviceCircuitBreakers;
import io.rdmaverbs.spring.boot.resilience.TeardownRetries;
import io.rdmaverbs.spring.boot.resources.DeclaredResourceFactory;
import io.rdmaverbs.spring.boot.teardown.TeardownPolicy;
import io.rdmaverbs.spring.boot.teardown.VerbsTeardown;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.provider.ProviderUnavailableException;
import io.rdmaverbs.verbs.provider.VerbsProvider;
import io.rdmaverbs.verbs.provider.simulated.DeviceProfile;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.test.context.FilteredClassLoader;

import static org.assertj.core.api.Assertions.assertThat;

class VerbsAutoConfigurationTests {

    @Test
    void simulatedProviderGivesTheGraphTheTeardownAndEveryIntegration() {
        Contexts.simulated().withPropertyValues("management.endpoints.web.exposure.include=verbs")
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new).run(context -> {
            assertThat(context).hasSingleBean(Verbs.class)
                    .hasSingleBean(DeclaredResourceFactory.class)
                    .hasSingleBean(VerbsTeardown.class)
                    .hasSingleBean(TeardownRetries.class)
                    .hasSingleBean(VerbsInfoContributor.class)
                    .hasSingleBean(AsyncEventReaders.class)
                    .hasSingleBean(AsyncEventPublisher.class)
                    .hasSingleBean(DeviceFaults.class)
                    .hasSingleBean(DeviceCircuitBreakers.class)
                    .hasSingleBean(VerbsHealthContributor.class)
                    .hasSingleBean(VerbsEndpoint.class)
                    .hasSingleBean(VerbsEndpointWebExtension.class)
                    .hasSingleBean(VerbsMetrics.class)
                    .hasSingleBean(VerbsEventMetrics.class)
                    .hasSingleBean(TaggedRetryMetrics.class)
                    .hasSingleBean(TaggedCircuitBreakerMetrics.class);
            assertThat(context.getBean(VerbsProvider.class)).isInstanceOf(SimulatedProvider.class);
            assertThat(context.getBean(VerbsProvider.class).deviceVerbs().devices()).extracting(d -> d.name())
                    .containsExactly("rxe0");
        });
    }

    @Test
    void backsOffEntirelyWithoutVerbsCore() {
        Contexts.simulated()
                .withPropertyValues(Contexts.FULL)
                .withClassLoader(new FilteredClassLoader(Verbs.class))
                .run(context -> assertThat(context).hasNotFailed()
                        .doesNotHaveBean(Verbs.class)
                        .doesNotHaveBean(VerbsProvider.class)
                        .doesNotHaveBean(VerbsTeardown.class)
                        .doesNotHaveBean(DeviceContext.class)
                        .doesNotHaveBean(VerbsHealthContributor.class)
                        .doesNotHaveBean(VerbsMetrics.class));
    }

    @Test
    void nativeIsTheDefaultProviderAndFailsTheStartupWhenItsLibraryIsMissing() {
        Contexts.all()
                .withPropertyValues("rdma.verbs.native.library-path=/nonexistent/libibverbs.so.1")
                .run(context -> {
                    assertThat(context).hasFailed();
                    ProviderUnavailableException cause = Contexts.causeOf(context.getStartupFailure(),
                            ProviderUnavailableException.class);
                    assertThat(cause.reason()).isEqualTo(ProviderUnavailableException.Reason.LIBRARY_NOT_FOUND);
                    assertThat(cause).hasMessageContaining("/nonexistent/libibverbs.so.1");
                });
    }

    @Test
    void aUserSuppliedProviderWinsOverTheConfiguredOne() {
        SimulatedProvider own = SimulatedProvider.of(DeviceProfile.mlx5("mlx5_0"));
        Contexts.simulated()
                .withPropertyValues("rdma.verbs.provider=native", "rdma.verbs.native.library-path=/nonexistent")
                .withBean(VerbsProvider.class, () -> own)
                .withPropertyValues("rdma.verbs.devices.hca.name=mlx5_0",
                        "rdma.verbs.devices.hca.xrc-domains.x.create=true")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(VerbsProvider.class)).isSameAs(own);
                    assertThat(context.getBean("hca", DeviceContext.class).supportsXrc()).isTrue();
                });
    }

    @Test
    void aUserSuppliedGraphWinsAndStillGetsTheListenerBeans() {
        Verbs own = Verbs.using(SimulatedProvider.of(DeviceProfile.rxe("rxe0")));
        ClosedResources closed = new ClosedResources();
        Contexts.simulated()
                .withBean(Verbs.class, () -> own)
                .withBean(ClosedResources.class, () -> closed)
                .withPropertyValues(Contexts.FULL)
                .run(context -> {
                    assertThat(context.getBean(Verbs.class)).isSameAs(own);
                    assertThat(own.resources()).hasSize(8);
                    context.close();
                    assertThat(closed.names()).containsExactlyElementsOf(Contexts.FULL_RELEASE_ORDER);
                });
    }

    @Test
    void theStarterDeclaresNoResilience4jRegistryBeanOfItsOwn() {
        Contexts.simulated().withPropertyValues(Contexts.FULL).run(context -> {
            assertThat(context).doesNotHaveBean(RetryRegistry.class).doesNotHaveBean(CircuitBreakerRegistry.class);
            assertThat(context.getBean(TeardownRetries.class).registry().find("rdma-verbs-teardown")).isPresent();
        });
    }

    /**
     * What resilience4j-spring-boot3 does (one RetryRegistry and one CircuitBreakerRegistry bean, which
     * the application injects), simulated with declared beans: its 2.4.0 auto-configuration refuses to
     * start on Spring Boot 4 ("only compatible with Spring Boot 3.x", SpringBoot3Verifier).
     */
    @Test
    void applicationResilience4jRegistriesAreLeftAloneAndTheStarterKeepsItsOwn() {
        RetryRegistry retries = RetryRegistry.ofDefaults();
        CircuitBreakerRegistry breakers = CircuitBreakerRegistry.ofDefaults();
        Contexts.simulated()
                .withBean(RetryRegistry.class, () -> retries)
                .withBean(CircuitBreakerRegistry.class, () -> breakers)
                .withPropertyValues(Contexts.FULL)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).getBean(RetryRegistry.class).isSameAs(retries);
                    assertThat(context).getBean(CircuitBreakerRegistry.class).isSameAs(breakers);
                    DeviceCircuitBreakers devices = context.getBean(DeviceCircuitBreakers.class);
                    assertThat(devices.registry()).isNotSameAs(breakers);
                    assertThat(devices.find("main")).isPresent();
                    assertThat(breakers.getAllCircuitBreakers()).isEmpty();
                    assertThat(retries.getAllRetries()).as("the application's registry").isEmpty();
                    assertThat(context.getBean(TeardownRetries.class).registry().find("rdma-verbs-teardown"))
                            .isPresent();
                });
    }

    @Test
    void circuitBreakersBackOffWithoutResilience4jCircuitBreakerAndHealthStaysAvailable() {
        Contexts.simulated()
                .withClassLoader(new FilteredClassLoader(CircuitBreaker.class))
                .run(context -> assertThat(context).hasNotFailed()
                        .doesNotHaveBean(DeviceCircuitBreakers.class)
                        .doesNotHaveBean(TaggedCircuitBreakerMetrics.class)
                        .hasSingleBean(VerbsHealthContributor.class));
    }

    @Test
    void healthBacksOffWithoutSpringBootHealth() {
        Contexts.simulated()
                .withClassLoader(new FilteredClassLoader(HealthContributor.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(VerbsHealthContributor.class));
    }

    @ParameterizedTest
    @ValueSource(strings = { "rdmaverbs", "rdma-verbs", "rdmaVerbs" })
    void healthIndicatorIsDisabledByItsPropertyInEverySpellingRelaxedBindingAllows(String key) {
        Contexts.simulated()
                .withPropertyValues("management.health." + key + ".enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(VerbsHealthContributor.class));
    }

    @Test
    void infoContributorIsDisabledByItsProperty() {
        Contexts.simulated()
                .withPropertyValues("management.info.rdma-verbs.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(VerbsInfoContributor.class));
    }

    @Test
    void metricsBackOffWithoutAMeterRegistry() {
        Contexts.simulated().run(context -> assertThat(context).hasNotFailed()
                .doesNotHaveBean(VerbsMetrics.class)
                .doesNotHaveBean(VerbsEventMetrics.class)
                .doesNotHaveBean(TaggedCircuitBreakerMetrics.class));
    }

    @Test
    void healthIndicatorFollowsTheDefaultOfAllHealthIndicators() {
        Contexts.simulated()
                .withPropertyValues("management.health.defaults.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(VerbsHealthContributor.class));
    }

    @Test
    void endpointIsAvailableOnlyWhenExposed() {
        Contexts.simulated().run(context -> assertThat(context).doesNotHaveBean(VerbsEndpoint.class)
                .doesNotHaveBean(VerbsEndpointWebExtension.class));
        Contexts.simulated()
                .withPropertyValues("management.endpoints.web.exposure.include=health,verbs")
                .run(context -> assertThat(context).hasSingleBean(VerbsEndpoint.class)
                        .hasSingleBean(VerbsEndpointWebExtension.class));
        Contexts.simulated()
                .withPropertyValues("management.endpoints.web.exposure.include=verbs",
                        "management.endpoint.verbs.access=NONE")
                .run(context -> assertThat(context).doesNotHaveBean(VerbsEndpoint.class));
    }

    @Test
    void metricsBackOffWithoutMicrometer() {
        Contexts.simulated()
                .withClassLoader(new FilteredClassLoader(MeterRegistry.class))
                .run(context -> assertThat(context).hasNotFailed()
                        .doesNotHaveBean(VerbsMetrics.class)
                        .doesNotHaveBean(VerbsEventMetrics.class));
    }

    @Test
    void resilience4jMetricsBackOffWithoutResilience4jMicrometer() {
        Contexts.simulated()
                .withClassLoader(new FilteredClassLoader(TaggedRetryMetrics.class, TaggedCircuitBreakerMetrics.class))
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .run(context -> assertThat(context).hasSingleBean(VerbsMetrics.class)
                        .doesNotHaveBean(TaggedRetryMetrics.class)
                        .doesNotHaveBean(TaggedCircuitBreakerMetrics.class));
    }

    @Test
    void asyncEventsAreSwitchedOffByTheirProperty() {
        Contexts.simulated()
                .withPropertyValues("rdma.verbs.async-events.enabled=false")
                .run(context -> assertThat(context).hasNotFailed()
                        .doesNotHaveBean(AsyncEventReaders.class)
                        .doesNotHaveBean(AsyncEventPublisher.class)
                        .hasSingleBean(VerbsHealthContributor.class));
    }

    @Test
    void userSuppliedHealthContributorAndEndpointWin() {
        Contexts.simulated()
                .withPropertyValues("management.endpoints.web.exposure.include=verbs")
                .withBean("rdmaVerbsHealthContributor", HealthIndicator.class, () -> () -> Health.up().build())
                .withBean("ownEndpoint", VerbsEndpoint.class,
                        () -> new VerbsEndpoint(Verbs.using(SimulatedProvider.of(DeviceProfile.rxe("rxe9"))),
                                TeardownPolicy.CASCADE, List.of(), Show.NEVER))
                .withPropertyValues(Contexts.FULL)
                .run(context -> {
                    assertThat(context).doesNotHaveBean(VerbsHealthContributor.class);
                    assertThat(context).getBean(VerbsEndpoint.class).isSameAs(context.getBean("ownEndpoint"));
                });
    }
}
