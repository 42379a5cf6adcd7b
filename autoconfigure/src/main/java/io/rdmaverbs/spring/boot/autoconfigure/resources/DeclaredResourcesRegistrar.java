package io.rdmaverbs.spring.boot.autoconfigure.resources;

import java.util.List;

import io.rdmaverbs.spring.boot.autoconfigure.VerbsProperties;
import io.rdmaverbs.spring.boot.autoconfigure.resources.ResourceDeclarations.Declaration;
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

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
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
 */
public final class DeclaredResourcesRegistrar implements ImportBeanDefinitionRegistrar, EnvironmentAware,
        BeanFactoryAware {

    /** The bean definition attribute holding a bean's {@link Declaration}. */
    public static final String DECLARATION_ATTRIBUTE = DeclaredResourcesRegistrar.class.getName() + ".declaration";

    private Environment environment;
    private BeanFactory beanFactory;

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    @Override
    public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
        VerbsProperties properties = Binder.get(environment).bindOrCreate(VerbsProperties.PREFIX,
                VerbsProperties.class);
        for (Declaration declaration : ResourceDeclarations.of(properties).inCreationOrder()) {
            if (registry.containsBeanDefinition(declaration.key())) {
                throw new DuplicateResourceKeyException(declaration.key(), List.of(declaration.property()), true);
            }
            registry.registerBeanDefinition(declaration.key(), definition(declaration));
        }
    }

    private RootBeanDefinition definition(Declaration declaration) {
        RootBeanDefinition definition = new RootBeanDefinition(type(declaration.kind()));
        definition.setInstanceSupplier(() -> beanFactory.getBean(DeclaredResources.class)
                .create(declaration, name -> beanFactory.getBean(name, VerbsResource.class)));
        definition.setDependsOn(declaration.parents().toArray(String[]::new));
        // Not the inferred close(): a strict close would throw for what the teardown deliberately left.
        definition.setDestroyMethodName("");
        definition.setAttribute(DECLARATION_ATTRIBUTE, declaration);
        definition.setDescription("RDMA " + ResourceDeclarations.label(declaration.kind()) + " declared at "
                + declaration.property());
        return definition;
    }

    private static Class<? extends VerbsResource> type(ResourceKind kind) {
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
