import type { PageWords } from "./page-words.ts";

/**
 * The page's words in French (formal: vous), with a no-break space before `:` and inside
 * « », as French typography has it.
 */
export const fr: PageWords = {
  submit: "Envoyer",
  back: "Retour",
  next: "Suivant",
  stepOf: "Étape {step} sur {count}",
  stepName: "Étape {step}",
  steps: "Étapes",
  choose: "Choisissez…",
  formName: "Formulaire",
  fieldsToCorrect: "Champs à corriger",
  anyFiles: "Nombre de fichiers illimité",
  upToFiles: { one: "Jusqu’à {count} fichier", other: "Jusqu’à {count} fichiers" },
  eachAtMost: "{size} maximum chacun",
  bytes: { one: "{count} octet", other: "{count} octets" },
  kilobytes: "{size} ko",
  megabytes: "{size} Mo",
  closed: {
    closed: "Ce formulaire n’accepte plus de nouvelles réponses.",
    sold_out: "Ce formulaire a reçu le nombre maximal de réponses.",
  },
  notFound: {
    title: "Formulaire introuvable",
    message: "Aucun formulaire ne se trouve à cette adresse, ou il ne vous est pas accessible.",
  },
  badAddress: {
    title: "Formulaire introuvable",
    message: "Cette adresse ne correspond à aucun formulaire.",
  },
  disabled: {
    title: "Ce formulaire est fermé",
    message: "Ce formulaire est désactivé et n’accepte aucune réponse.",
  },
  signIn: {
    title: "Connexion requise",
    message: "Ce formulaire est réservé aux personnes connectées.",
  },
  cannotShow: "Ce formulaire ne peut pas être affiché",
  script: {
    required: "(obligatoire)",
    soldOut: "{option} (épuisé)",
    fixFields: "Veuillez corriger les champs signalés ci-dessous.",
    notSent: "Le formulaire n’a pas pu être envoyé.",
    offline: "Le formulaire n’a pas pu être envoyé. Vérifiez votre connexion, puis réessayez.",
    thanks: "Merci pour votre réponse.",
    uploadOf: "Envoi de {file}",
    uploadUnprepared: "{file}\u00a0: l’envoi n’a pas pu être préparé.",
    uploadFailed: "{file}\u00a0: l’envoi a échoué ({status}).",
    uploadUnreached: "{file}\u00a0: le fichier n’a pas atteint le serveur.",
    tooManyChosen: {
      one: "Veuillez choisir au plus {count} fichier.",
      other: "Veuillez choisir au plus {count} fichiers.",
    },
    fileTooLarge: "{file} dépasse la taille autorisée.",
    fileNotUploaded: "Un fichier n’a pas pu être envoyé. Veuillez le choisir de nouveau.",
    payment: {
      paid: "Paiement reçu. Merci\u00a0!",
      confirming: "Confirmation du paiement…",
      unconfirmed:
        "Votre paiement n’est pas encore confirmé. Rechargez cette page dans un instant pour vérifier.",
      notCompleted: "Paiement non effectué.",
      tryAgain: "Réessayer",
      closed: "Cette commande ne peut plus être payée. Veuillez remplir de nouveau le formulaire.",
      unreached: "Le paiement n’a pas pu être vérifié pour l’instant. Réessayez dans un instant.",
    },
    problems: {
      required: "{label}\u00a0: ce champ est obligatoire.",
      too_long: {
        one: "{label}\u00a0: veuillez saisir au plus {count} caractère.",
        other: "{label}\u00a0: veuillez saisir au plus {count} caractères.",
      },
      not_email: "{label}\u00a0: veuillez saisir une adresse e-mail valide.",
      not_number: "{label}\u00a0: veuillez saisir un nombre.",
      too_small: "{label}\u00a0: la valeur doit être supérieure ou égale à {min}.",
      too_large: "{label}\u00a0: la valeur doit être inférieure ou égale à {max}.",
      not_date: "{label}\u00a0: veuillez saisir une date au format AAAA-MM-JJ.",
      not_attachments:
        "{label}\u00a0: les fichiers envoyés ne sont pas valides. Veuillez les choisir de nouveau.",
      repeated_attachment: "{label}\u00a0: un même fichier figure plusieurs fois.",
      too_many_files: {
        one: "{label}\u00a0: veuillez choisir au plus {count} fichier.",
        other: "{label}\u00a0: veuillez choisir au plus {count} fichiers.",
      },
      not_an_option: "{label}\u00a0: veuillez choisir l’une des options proposées.",
      repeated_option: "{label}\u00a0: une même option est choisie plusieurs fois.",
      sold_out: "{label}\u00a0: «\u00a0{option}\u00a0» est épuisé.",
    },
  },
};
