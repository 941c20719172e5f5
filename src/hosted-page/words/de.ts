import type { PageWords } from "./page-words.ts";

/** The page's words in German (formal: Sie). */
export const de: PageWords = {
  submit: "Absenden",
  back: "Zurück",
  next: "Weiter",
  stepOf: "Schritt {step} von {count}",
  stepName: "Schritt {step}",
  steps: "Schritte",
  choose: "Bitte wählen…",
  formName: "Formular",
  fieldsToCorrect: "Zu korrigierende Felder",
  anyFiles: "Beliebig viele Dateien",
  upToFiles: { one: "Bis zu {count} Datei", other: "Bis zu {count} Dateien" },
  eachAtMost: "je höchstens {size}",
  bytes: { one: "{count} Byte", other: "{count} Byte" },
  kilobytes: "{size} kB",
  megabytes: "{size} MB",
  closed: {
    closed: "Dieses Formular nimmt keine neuen Einsendungen mehr an.",
    sold_out: "Dieses Formular hat die maximale Zahl an Einsendungen erreicht.",
  },
  notFound: {
    title: "Formular nicht gefunden",
    message: "Unter dieser Adresse gibt es kein Formular, oder es ist für Sie nicht freigegeben.",
  },
  badAddress: {
    title: "Formular nicht gefunden",
    message: "Diese Adresse verweist auf kein Formular.",
  },
  disabled: {
    title: "Dieses Formular ist geschlossen",
    message: "Dieses Formular ist deaktiviert und nimmt keine Einsendungen an.",
  },
  signIn: {
    title: "Anmeldung erforderlich",
    message: "Dieses Formular steht nur angemeldeten Personen offen.",
  },
  cannotShow: "Dieses Formular kann nicht angezeigt werden",
  script: {
    required: "(Pflichtfeld)",
    soldOut: "{option} (ausverkauft)",
    fixFields: "Bitte korrigieren Sie die unten markierten Felder.",
    notSent: "Das Formular konnte nicht gesendet werden.",
    offline:
      "Das Formular konnte nicht gesendet werden. Bitte prüfen Sie Ihre Internetverbindung und versuchen Sie es erneut.",
    thanks: "Vielen Dank für Ihre Einsendung.",
    uploadOf: "Hochladen von {file}",
    uploadUnprepared: "{file}: Das Hochladen konnte nicht vorbereitet werden.",
    uploadFailed: "{file}: Das Hochladen ist fehlgeschlagen ({status}).",
    uploadUnreached: "{file}: Die Datei hat den Server nicht erreicht.",
    tooManyChosen: {
      one: "Bitte wählen Sie höchstens {count} Datei.",
      other: "Bitte wählen Sie höchstens {count} Dateien.",
    },
    fileTooLarge: "{file} ist größer als erlaubt.",
    fileNotUploaded: "Eine Datei wurde nicht hochgeladen. Bitte wählen Sie sie erneut aus.",
    payment: {
      paid: "Zahlung erhalten. Vielen Dank!",
      confirming: "Zahlung wird bestätigt…",
      unconfirmed:
        "Ihre Zahlung ist noch nicht bestätigt. Laden Sie diese Seite gleich neu, um erneut nachzusehen.",
      notCompleted: "Zahlung nicht abgeschlossen.",
      tryAgain: "Erneut versuchen",
      closed:
        "Diese Bestellung kann nicht mehr bezahlt werden. Bitte füllen Sie das Formular erneut aus.",
      unreached:
        "Die Zahlung konnte gerade nicht geprüft werden. Versuchen Sie es gleich noch einmal.",
    },
    problems: {
      required: "{label}: Bitte füllen Sie dieses Feld aus.",
      too_long: {
        one: "{label}: Bitte geben Sie höchstens {count} Zeichen ein.",
        other: "{label}: Bitte geben Sie höchstens {count} Zeichen ein.",
      },
      not_email: "{label}: Bitte geben Sie eine gültige E-Mail-Adresse ein.",
      not_number: "{label}: Bitte geben Sie eine Zahl ein.",
      too_small: "{label}: Der Wert muss mindestens {min} betragen.",
      too_large: "{label}: Der Wert darf höchstens {max} betragen.",
      not_date: "{label}: Bitte geben Sie ein Datum im Format JJJJ-MM-TT ein.",
      not_attachments:
        "{label}: Die hochgeladenen Dateien sind ungültig. Bitte wählen Sie sie erneut aus.",
      repeated_attachment: "{label}: Eine Datei ist mehrfach angegeben.",
      too_many_files: {
        one: "{label}: Bitte wählen Sie höchstens {count} Datei.",
        other: "{label}: Bitte wählen Sie höchstens {count} Dateien.",
      },
      not_an_option: "{label}: Bitte wählen Sie eine der angebotenen Optionen.",
      repeated_option: "{label}: Eine Option ist mehrfach gewählt.",
      sold_out: "{label}: „{option}“ ist ausverkauft.",
    },
  },
};
