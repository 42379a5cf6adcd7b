package io.rdmaverbs.spring.boot.autoconfigure.health;

import java.util.stream.Stream;

import io.rdmaverbs.spring.boot.autoconfigure.VerbsProperties;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.Verbs;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthContributor;

/**
 * The {@code rdmaVerbs} health contributor: one {@link DeviceHealthIndicator} per open device context,
 * named by the context's name (its key under {@code rdma.verbs.devices}). Contexts the application
 * opens itself appear as they are opened.
 */
public final class VerbsHealthContributor implements CompositeHealthContributor {

    private final Verbs verbs;
    private final VerbsProperties properties;
    private final DeviceHealthIndicator.DeviceState state;

    VerbsHealthContributor(Verbs verbs, VerbsProperties properties, DeviceHealthIndicator.DeviceState state) {
        this.verbs = verbs;
        this.properties = properties;
        this.state = state;
    }

    @Override
    public @Nullable HealthContributor getContributor(String name) {
        return verbs.contexts().stream().filter(c -> c.name().equals(name)).findFirst().map(this::indicator)
                .orElse(null);
    }

    @Override
    public Stream<Entry> stream() {
        return verbs.contexts().stream().map(c -> new Entry(c.name(), indicator(c)));
    }

    private HealthContributor indicator(DeviceContext context) {
        VerbsProperties.Device declared = properties.devices().get(context.name());
        return new DeviceHealthIndicator(verbs, context, declared == null ? 1 : declared.port(), state);
    }
}
