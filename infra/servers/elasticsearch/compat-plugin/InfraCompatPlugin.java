/*
 * infra-compat: a tiny Elasticsearch plugin for the integration-test server started by
 * infra/servers/elasticsearch.sh. The Elasticsearch 8 distribution that is on Maven Central
 * ("integ-test-zip") ships only the transport-netty4 / x-pack-core / x-pack-security / apm
 * modules, so the analysis-common and rest-root modules are missing. This plugin re-adds,
 * with the same names and on top of the Lucene classes already in the distribution:
 *   - the "english" analyzer (Lucene EnglishAnalyzer; stopwords / stem_exclusion settings),
 *   - token filters "porter_stem", "kstem", "asciifolding", "stemmer" (English variants only),
 *     "edge_ngram",
 *   - GET / and HEAD / (cluster info / ping used by Elasticsearch clients).
 * It is compiled by elasticsearch.sh with javac against the distribution's lib/ jars.
 */
package infra.compat;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Collection;
import java.util.function.Predicate;
import java.util.function.Supplier;

import org.apache.lucene.analysis.CharArraySet;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.analysis.en.EnglishMinimalStemFilter;
import org.apache.lucene.analysis.en.EnglishPossessiveFilter;
import org.apache.lucene.analysis.en.KStemFilter;
import org.apache.lucene.analysis.en.PorterStemFilter;
import org.apache.lucene.analysis.miscellaneous.ASCIIFoldingFilter;
import org.apache.lucene.analysis.ngram.EdgeNGramTokenFilter;
import org.elasticsearch.Build;
import org.elasticsearch.client.internal.node.NodeClient;
import org.elasticsearch.cluster.ClusterState;
import org.elasticsearch.cluster.metadata.IndexNameExpressionResolver;
import org.elasticsearch.cluster.node.DiscoveryNodes;
import org.elasticsearch.cluster.service.ClusterService;
import org.elasticsearch.common.bytes.BytesArray;
import org.elasticsearch.common.io.stream.NamedWriteableRegistry;
import org.elasticsearch.common.settings.ClusterSettings;
import org.elasticsearch.common.settings.IndexScopedSettings;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.common.settings.SettingsFilter;
import org.elasticsearch.env.Environment;
import org.elasticsearch.features.NodeFeature;
import org.elasticsearch.index.IndexSettings;
import org.elasticsearch.index.analysis.AbstractIndexAnalyzerProvider;
import org.elasticsearch.index.analysis.AbstractTokenFilterFactory;
import org.elasticsearch.index.analysis.Analysis;
import org.elasticsearch.index.analysis.AnalyzerProvider;
import org.elasticsearch.index.analysis.TokenFilterFactory;
import org.elasticsearch.indices.analysis.AnalysisModule.AnalysisProvider;
import org.elasticsearch.plugins.ActionPlugin;
import org.elasticsearch.plugins.AnalysisPlugin;
import org.elasticsearch.plugins.Plugin;
import org.elasticsearch.rest.BaseRestHandler;
import org.elasticsearch.rest.RestController;
import org.elasticsearch.rest.RestHandler;
import org.elasticsearch.rest.RestRequest;
import org.elasticsearch.rest.RestResponse;
import org.elasticsearch.rest.RestStatus;
import org.elasticsearch.xcontent.XContentBuilder;

public class InfraCompatPlugin extends Plugin implements AnalysisPlugin, ActionPlugin {

    private volatile ClusterService clusterService;

    @Override
    public Collection<?> createComponents(PluginServices services) {
        this.clusterService = services.clusterService();
        return List.of();
    }

    // ------------------------------------------------------------------ analysis

    static final class EnglishAnalyzerProvider extends AbstractIndexAnalyzerProvider<EnglishAnalyzer> {
        private final EnglishAnalyzer analyzer;

        EnglishAnalyzerProvider(IndexSettings indexSettings, Environment env, String name, Settings settings) {
            super(name, settings);
            analyzer = new EnglishAnalyzer(
                Analysis.parseStopWords(env, settings, EnglishAnalyzer.getDefaultStopSet()),
                Analysis.parseStemExclusion(settings, CharArraySet.EMPTY_SET));
        }

        @Override
        public EnglishAnalyzer get() {
            return analyzer;
        }
    }

    interface Filter {
        TokenStream apply(TokenStream in);
    }

    static AnalysisProvider<TokenFilterFactory> filter(java.util.function.Function<Settings, Filter> make) {
        return (indexSettings, env, name, settings) -> {
            Filter f = make.apply(settings);
            return new AbstractTokenFilterFactory(name, settings) {
                @Override
                public TokenStream create(TokenStream tokenStream) {
                    return f.apply(tokenStream);
                }
            };
        };
    }

    static Filter stemmer(Settings s) {
        String lang = s.get("language", s.get("name", "english"));
        switch (lang) {
            case "english":
            case "porter":
                return PorterStemFilter::new;
            case "light_english":
            case "kstem":
                return KStemFilter::new;
            case "minimal_english":
                return EnglishMinimalStemFilter::new;
            case "possessive_english":
                return EnglishPossessiveFilter::new;
            default:
                throw new IllegalArgumentException("infra-compat stemmer supports only English languages, not [" + lang + "]");
        }
    }

    @Override
    public Map<String, AnalysisProvider<AnalyzerProvider<? extends org.apache.lucene.analysis.Analyzer>>> getAnalyzers() {
        return Map.of("english", EnglishAnalyzerProvider::new);
    }

    @Override
    public Map<String, AnalysisProvider<TokenFilterFactory>> getTokenFilters() {
        return Map.of(
            "porter_stem", filter(s -> PorterStemFilter::new),
            "kstem", filter(s -> KStemFilter::new),
            "asciifolding", filter(s -> {
                boolean keep = s.getAsBoolean("preserve_original", false);
                return in -> new ASCIIFoldingFilter(in, keep);
            }),
            "stemmer", filter(InfraCompatPlugin::stemmer),
            "edge_ngram", filter(s -> {
                int min = s.getAsInt("min_gram", 1);
                int max = s.getAsInt("max_gram", 2);
                boolean keep = s.getAsBoolean("preserve_original", false);
                return in -> new EdgeNGramTokenFilter(in, min, max, keep);
            }));
    }

    // ------------------------------------------------------------------ GET / and HEAD /

    final class RestMain extends BaseRestHandler {
        @Override
        public String getName() {
            return "infra_compat_main_action";
        }

        @Override
        public List<Route> routes() {
            return List.of(new Route(RestRequest.Method.GET, "/"), new Route(RestRequest.Method.HEAD, "/"));
        }

        @Override
        protected RestChannelConsumer prepareRequest(RestRequest request, NodeClient client) throws IOException {
            if (request.method() == RestRequest.Method.HEAD) {
                return channel -> channel.sendResponse(
                    new RestResponse(RestStatus.OK, RestResponse.TEXT_CONTENT_TYPE, BytesArray.EMPTY));
            }
            return channel -> {
                ClusterState state = clusterService.state();
                Build build = Build.current();
                XContentBuilder b = channel.newBuilder();
                b.startObject();
                b.field("name", clusterService.getNodeName());
                b.field("cluster_name", state.getClusterName().value());
                b.field("cluster_uuid", state.metadata().clusterUUID());
                b.startObject("version")
                    .field("number", build.qualifiedVersion())
                    .field("build_flavor", build.flavor())
                    .field("build_type", build.type().displayName())
                    .field("build_hash", build.hash())
                    .field("build_date", build.date())
                    .field("build_snapshot", build.isSnapshot())
                    .field("lucene_version", org.apache.lucene.util.Version.LATEST.toString())
                    .field("minimum_wire_compatibility_version", build.minWireCompatVersion())
                    .field("minimum_index_compatibility_version", build.minIndexCompatVersion())
                    .endObject();
                b.field("tagline", "You Know, for Search");
                b.endObject();
                channel.sendResponse(new RestResponse(RestStatus.OK, b));
            };
        }
    }

    @Override
    public Collection<RestHandler> getRestHandlers(Settings settings, NamedWriteableRegistry namedWriteableRegistry,
            RestController restController, ClusterSettings clusterSettings, IndexScopedSettings indexScopedSettings,
            SettingsFilter settingsFilter, IndexNameExpressionResolver indexNameExpressionResolver,
            Supplier<DiscoveryNodes> nodesInCluster, Predicate<NodeFeature> clusterSupportsFeature) {
        return List.of(new RestMain());
    }
}
