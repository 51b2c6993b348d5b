/**
 * The papers the trainers come from, named the way a user can find them: by title (the authors
 * only where the paper itself names them). User-facing text (trainer descriptions, claim sources,
 * error messages) cites these instead of the file numbers of the project's paper folder.
 *
 * @module
 */

/** SUB-LDA: Algorithm 1, eq. (3), Table 3. The extracted text names no authors; the title and venue are the published ones. */
export const SUB_LDA_PAPER = 'the SUB-LDA paper, "Improving Privacy Guarantee and Efficiency of Latent Dirichlet Allocation Model Training Under Differential Privacy" (Findings of EMNLP 2021)'

/** HDP-LDA, LP-LDA, OLP-LDA, the CDP-LDA baselines and the topic-based attack. */
export const LDA_DP_PAPER = 'Zhao, Ren, Yang, Han, Zhao & Yang, "Latent Dirichlet Allocation Model Training with Differential Privacy" (arXiv:2010.04391)'

/** Short form of `LDA_DP_PAPER` for places that cite it repeatedly. */
export const LDA_DP = 'Zhao et al., LDA training with DP'

/** Private stochastic variational inference for LDA (perturbed expected sufficient statistics). The extracted text names no authors. */
export const PRIVATE_SVI_PAPER = '"Private Topic Modeling" (arXiv:1609.04120: private stochastic variational inference for LDA, zCDP + subsampling)'

/** Short form of `PRIVATE_SVI_PAPER`. */
export const PRIVATE_SVI = 'private SVI for LDA'

/** The private spectral algorithm: mechanism graph e0–e9, four noise configurations, Procedure 1. The extracted text names no authors. */
export const SPECTRAL_PAPER = '"An end-to-end Differentially Private Latent Dirichlet Allocation Using a Spectral Algorithm" (arXiv:1805.10341)'

/** Short form of `SUB_LDA_PAPER`. */
export const SUB_LDA = 'the SUB-LDA paper'

/** Short form of `SPECTRAL_PAPER`. */
export const SPECTRAL = 'the spectral-LDA paper'

/** A paper as the user names it: a key derived from its title, the aliases it also answers to, and its titles. */
export interface PaperName {
  /** The key `dpaudit verify --paper` takes, derived from the title (`sub-lda`, `hdp-lda`, …). */
  readonly key: string
  /**
   * Other names accepted for it: the prefixes of its claim ids (so `--paper lp-lda` picks the paper of
   * `lp-lda.theorem4`) and, for scripts written before issue 11, the number of its claims file.
   */
  readonly aliases: ReadonlyArray<string>
  /** The number of its claims file in `claims/` (`000-sub-lda.json` → `000`): file naming, not a citation. */
  readonly file: string
  readonly title: string
  readonly short: string
}

/** The papers whose claims `dpaudit verify` checks, by the number of their claims file. */
export const PAPER_NAMES: ReadonlyArray<PaperName> = [
  { key: 'sub-lda', aliases: ['000'], file: '000', title: SUB_LDA_PAPER, short: SUB_LDA },
  { key: 'hdp-lda', aliases: ['lda-dp', 'lp-lda', 'olp-lda', 'cdp-lda', '001'], file: '001', title: LDA_DP_PAPER, short: LDA_DP },
  { key: 'private-svi', aliases: ['svi', '002'], file: '002', title: PRIVATE_SVI_PAPER, short: PRIVATE_SVI },
  { key: 'spectral', aliases: ['spectral-lda', '004'], file: '004', title: SPECTRAL_PAPER, short: SPECTRAL },
]
