package io.rdmaverbs.spring.boot.resources;

import java.util.List;
import java.util.Map;

import io.rdmaverbs.spring.boot.resources.CheckedDeclarations.Declaration;
import io.rdmaverbs.spring.boot.resources.Declarations.Device;
import io.rdmaverbs.verbs.CompletionChannel;
import io.rdmaverbs.verbs.CompletionQueue;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.MemoryRegion;
import io.rdmaverbs.verbs.ProtectionDomain;
import io.rdmaverbs.verbs.QueuePair;
import io.rdmaverbs.verbs.ResourceKind;
import io.rdmaverbs.verbs.SharedReceiveQueue;
import io.rdmaverbs.verbs.VerbsResource;
import io.rdmaverbs.verbs.XrcDomain;

import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Defines one bean per resource declared under {@code rdma.verbs.devices}, named by its key and typed
 * by its verbs-core class. The configuration is read here, before any bean exists, so that its
 * structure (unique keys, resolvable references, no cycles) fails the startup early; each bean then
 * depends on its parents' beans, which is the order Spring creates them in and the reverse of the order
 * it destroys them in.
 *
 * <p>Each definition names a factory method, {@link DeclaredResourceFactory#create(String)} with the
 * key as its argument, rather than an instance supplier: ahead-of-time processing
 * ({@code spring-boot:process-aot}, native images) can write such a definition as code. The set of
 * declared beans is then fixed when the application is processed; their settings are read at startup.
 */
public final class DeclaredResourcesRegistrar implements ImportBeanDefinitionRegistrar, EnvironmentAware {

    private Environment environment;

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
        Map<String, Device> devices = Binder.get(environment)
                .bind(Declarations.DEVICES, Bindable.mapOf(String.class, Device.class)).orElse(Map.of());
        for (Declaration declaration : CheckedDeclarations.of(devices).inCreationOrder()) {
            if (registry.containsBeanDefinition(declaration.key())) {
                throw new DuplicateResourceKeyException(declaration.key(), List.of(declaration.property()), true);
            }
            registry.registerBeanDefinition(declaration.key(), definition(declaration));
        }
    }

    private static RootBeanDefinition definition(Declaration declaration) {
        RootBeanDefinition definition = new RootBeanDefinition();
        definition.setTargetType(type(declaration.kind()));
        definition.setFactoryBeanName(DeclaredResourceFactory.BEAN_NAME);
        definition.setFactoryMethodName("create");
        definition.getConstructorArgumentValues().addIndexedArgumentValue(0, declaration.key());
        definition.setDependsOn(declaration.parents().toArray(String[]::new));
        // Not the inferred close(): a strict close would throw for what the teardown deliberately left.
        definition.setDestroyMethodName("");
        definition.setDescription("RDMA " + CheckedDeclarations.label(declaration.kind()) + " declared at "
                + declaration.property());
        return definition;
    }

    /** The verbs-core type of a declared resource of {@code kind}. */
    static Class<? extends VerbsResource> type(ResourceKind kind) {
        return switch (kind) {
            case DEVICE_CONTEXT -> DeviceContext.class;
            case PROTECTION_DOMAIN -> ProtectionDomain.class;
            case XRC_DOMAIN -> XrcDomain.class;
            case COMPLETION_CHANNEL -> CompletionChannel.class;
            case COMPLETION_QUEUE -> CompletionQueue.class;
            case SHARED_RECEIVE_QUEUE -> SharedReceiveQueue.class;
            case QUEUE_PAIR -> QueuePair.class;
            case MEMORY_REGION -> MemoryRegion.class;
            default -> throw new IllegalArgumentException(kind + " cannot be declared");
        };
    }
}
