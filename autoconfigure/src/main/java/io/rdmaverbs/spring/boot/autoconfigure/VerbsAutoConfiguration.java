package io.rdmaverbs.spring.boot.autoconfigure;

import java.nio.file.Path;
import java.time.Duration;

import io.github.resilience4j.retry.RetryRegistry;
import io.rdmaverbs.spring.boot.autoconfigure.resources.DeclaredResources;
import io.rdmaverbs.spring.boot.autoconfigure.resources.DeclaredResourcesRegistrar;
import io.rdmaverbs.spring.boot.autoconfigure.teardown.DeclaredResourceRelease;
import io.rdmaverbs.spring.boot.autoconfigure.teardown.TeardownPolicy;
import io.rdmaverbs.spring.boot.autoconfigure.teardown.VerbsTeardown;
import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.VerbsListener;
import io.rdmaverbs.verbs.provider.VerbsProvider;
import io.rdmaverbs.verbs.provider.ffm.NativeVerbsProvider;
import io.rdmaverbs.verbs.provider.simulated.DeviceProfile;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.context.LifecycleProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;

/**
 * The RDMA verbs resource graph: the provider, the {@link Verbs} graph, one bean per resource declared
 * under {@code rdma.verbs.devices}, and the teardown that releases them all when the context stops.
 */
@AutoConfiguration
@ConditionalOnClass(Verbs.class)
@EnableConfigurationProperties(VerbsProperties.class)
@Import(DeclaredResourcesRegistrar.class)
public final class VerbsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    static VerbsListenersPostProcessor rdmaVerbsListenersPostProcessor(ObjectProvider<VerbsListener> listeners) {
        return new VerbsListenersPostProcessor(listeners);
    }

    @Bean
    @ConditionalOnMissingBean
    static DeclaredResourceRelease rdmaVerbsResourceRelease(ObjectProvider<VerbsTeardown> teardown,
            Environment environment) {
        // Bound here rather than injected: a post-processor must not pull the properties bean in early.
        TeardownPolicy policy = Binder.get(environment)
                .bind(VerbsProperties.PREFIX + ".teardown.policy", TeardownPolicy.class)
                .orElse(TeardownPolicy.STRICT);
        return new DeclaredResourceRelease(teardown, policy);
    }

    /** The graph has no destroy method: the teardown releases it, under the configured policy. */
    @Bean(destroyMethod = "")
    @ConditionalOnMissingBean
    Verbs rdmaVerbs(VerbsProvider provider) {
        return Verbs.using(provider);
    }

    @Bean
    @ConditionalOnMissingBean
    DeclaredResources rdmaVerbsDeclaredResources(Verbs verbs, VerbsProperties properties) {
        return new DeclaredResources(verbs, properties);
    }

    @Bean
    @ConditionalOnMissingBean
    RetryRegistry rdmaVerbsRetryRegistry() {
        return RetryRegistry.ofDefaults();
    }

    @Bean
    @ConditionalOnMissingBean
    VerbsTeardown rdmaVerbsTeardown(Verbs verbs, VerbsProperties properties, RetryRegistry retries,
            ObjectProvider<LifecycleProperties> lifecycle) {
        Duration phaseTimeout = lifecycle.getIfAvailable(LifecycleProperties::new).getTimeoutPerShutdownPhase();
        return new VerbsTeardown(verbs, properties.teardown(), retries, phaseTimeout);
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(prefix = VerbsProperties.PREFIX, name = "provider", havingValue = "native",
            matchIfMissing = true)
    static class NativeProviderConfiguration {

        @Bean
        @ConditionalOnMissingBean
        VerbsProvider rdmaVerbsProvider(VerbsProperties properties) {
            Path library = properties.nativeProvider().libraryPath();
            return library == null ? NativeVerbsProvider.load() : NativeVerbsProvider.load(library);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(prefix = VerbsProperties.PREFIX, name = "provider", havingValue = "simulated")
    static class SimulatedProviderConfiguration {

        @Bean
        @ConditionalOnMissingBean
        VerbsProvider rdmaVerbsProvider(VerbsProperties properties) {
            DeviceProfile[] profiles = properties.simulated().devices().entrySet().stream()
                    .map(e -> switch (e.getValue().profile()) {
                        case RXE -> DeviceProfile.rxe(e.getKey());
                        case MLX5 -> DeviceProfile.mlx5(e.getKey());
                        case MLX5_INFINIBAND -> DeviceProfile.mlx5Infiniband(e.getKey());
                    })
                    .toArray(DeviceProfile[]::new);
            return SimulatedProvider.of(profiles);
        }
    }
}
