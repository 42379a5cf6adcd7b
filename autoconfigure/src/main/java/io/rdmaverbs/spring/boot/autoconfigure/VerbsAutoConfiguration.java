package io.rdmaverbs.spring.boot.autoconfigure;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;

import io.github.resilience4j.core.IntervalFunction;
import io.rdmaverbs.spring.boot.observation.LifecycleObserver;
import io.rdmaverbs.spring.boot.resources.DeclaredResourceFactory;
import io.rdmaverbs.spring.boot.resources.DeclaredResourcesRegistrar;
import io.rdmaverbs.spring.boot.teardown.DeclaredResourceRelease;
import io.rdmaverbs.spring.boot.teardown.TeardownPolicy;
import io.rdmaverbs.spring.boot.teardown.VerbsTeardown;
import io.rdmaverbs.spring.boot.resilience.TeardownRetries;
import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.VerbsListener;
import io.rdmaverbs.verbs.provider.VerbsProvider;
import io.rdmaverbs.verbs.provider.ffm.NativeVerbsProvider;
import io.rdmaverbs.verbs.provider.simulated.DeviceProfile;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.context.LifecycleProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.core.env.Environment;

/**
 * The RDMA verbs resource graph: the provider, the {@link Verbs} graph, one bean per resource declared
 * under {@code rdma.verbs.devices}, and the teardown that releases them all when the context stops.
 */
@AutoConfiguration
@ConditionalOnClass(Verbs.class)
@EnableConfigurationProperties(VerbsProperties.class)
@Import(DeclaredResourcesRegistrar.class)
@ImportRuntimeHints(VerbsRuntimeHints.class)
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

    /** The factory bean of every declared resource's definition, by that name. */
    @Bean(DeclaredResourceFactory.BEAN_NAME)
    DeclaredResourceFactory rdmaVerbsDeclaredResources(Verbs verbs, VerbsProperties properties,
            ListableBeanFactory beanFactory, ObjectProvider<LifecycleObserver> observer) {
        return new DeclaredResourceFactory(verbs, properties.devices(), beanFactory,
                observer.getIfAvailable(() -> LifecycleObserver.NONE));
    }

    @Bean
    @ConditionalOnMissingBean
    TeardownRetries rdmaVerbsTeardownRetries() {
        return new TeardownRetries();
    }

    @Bean
    @ConditionalOnMissingBean
    VerbsTeardown rdmaVerbsTeardown(Verbs verbs, VerbsProperties properties, TeardownRetries retries,
            ObjectProvider<LifecycleProperties> lifecycle, ObjectProvider<LifecycleObserver> observer) {
        VerbsProperties.Teardown settings = properties.teardown();
        if (settings.timeout().isNegative()) {
            throw new InvalidVerbsSettingException(VerbsProperties.PREFIX + ".teardown.timeout", "it is "
                    + settings.timeout().toString().substring(2).toLowerCase(Locale.ROOT) + ", and a wait cannot "
                    + "be negative", "Set it to how long the teardown may wait for leases and references to be "
                    + "released (10s by default), or to 0 for a single close attempt without waiting, after which "
                    + VerbsProperties.PREFIX + ".teardown.policy decides (strict leaves what is still held open and "
                    + "reports it, cascade releases it)");
        }
        VerbsProperties.Retry retry = settings.retry();
        IntervalFunction backoff = IntervalFunction.ofExponentialBackoff(retry.initialBackoff(), retry.multiplier(),
                retry.maxBackoff());
        Duration phaseTimeout = lifecycle.getIfAvailable(LifecycleProperties::new).getTimeoutPerShutdownPhase();
        return new VerbsTeardown(verbs, settings.policy(), settings.timeout(),
                new VerbsTeardown.Retry(retry.maxAttempts(), backoff), retries.registry(), phaseTimeout,
                observer.getIfAvailable(() -> LifecycleObserver.NONE));
    }

    /**
     * The provider {@code rdma.verbs.provider} names, chosen when the context starts rather than by a
     * condition: an application processed ahead of time still takes the provider of the environment it
     * runs in.
     */
    @Bean
    @ConditionalOnMissingBean
    VerbsProvider rdmaVerbsProvider(VerbsProperties properties) {
        return switch (properties.provider()) {
            case NATIVE -> {
                Path library = properties.nativeProvider().libraryPath();
                yield library == null ? NativeVerbsProvider.load() : NativeVerbsProvider.load(library);
            }
            case SIMULATED -> SimulatedProvider.of(properties.simulated().devices().entrySet().stream()
                    .map(e -> switch (e.getValue().profile()) {
                        case RXE -> DeviceProfile.rxe(e.getKey());
                        case MLX5 -> DeviceProfile.mlx5(e.getKey());
                        case MLX5_INFINIBAND -> DeviceProfile.mlx5Infiniband(e.getKey());
                    })
                    .toArray(DeviceProfile[]::new));
        };
    }
}
